// The first pass of a project's lint: the modules a file requires, read
// from its text, and the order that puts every file after the files that
// require it (project_order.h), handed out to workers as files get ready.
#include <catch2/catch.hpp>

#include <algorithm>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "project_order.h"
#include "required_modules.h"

using namespace ljcheck;

TEST_CASE("require with a literal name is read from the text, each name once", "[project]") {
  const auto names = requiredModules(
      "local a = require(\"a.b\")\n"
      "local c = require 'c'\n"
      "local d = require [[d.e]]\n"
      "local again = require ( \"a.b\" )\n"
      "local dynamic = require(name)\n"
      "local m = myrequire('x')\n"
      "local bad = require \"unterminated\n");
  CHECK(names == std::vector<std::string>{"a.b", "c", "d.e"});
  CHECK(requiredModules("").empty());
  CHECK(requiredModules("require").empty());
}

TEST_CASE("callers come before the files they require, largest first among the ready", "[project]") {
  // 0 requires 1 and 2; 1 requires 2; 3 requires nothing and nobody requires it.
  std::vector<std::vector<std::size_t>> callers = {{}, {0}, {0, 1}, {}};
  const std::vector<std::uintmax_t> sizes = {10, 50, 5, 100};
  CallersFirst order = callersFirst(callers, sizes);
  CHECK(order.order == std::vector<std::size_t>{3, 0, 1, 2});
  CHECK(order.waitFor[2] == std::vector<std::size_t>{0, 1});
  CHECK(order.waitFor[1] == std::vector<std::size_t>{0});
  CHECK(order.waitFor[0].empty());
}

TEST_CASE("a cycle of requires is broken at its largest file, which waits for no file of the cycle", "[project]") {
  std::vector<std::vector<std::size_t>> callers = {{1}, {0}};  // 0 and 1 require each other
  CallersFirst order = callersFirst(callers, {5, 7});
  CHECK(order.order == std::vector<std::size_t>{1, 0});
  CHECK(order.waitFor[1].empty());
  CHECK(order.waitFor[0] == std::vector<std::size_t>{1});
}

TEST_CASE("the queue hands out a file only after the files it waits for are finished", "[project]") {
  std::vector<std::vector<std::size_t>> callers(40);
  std::vector<std::uintmax_t> sizes(40);
  for (std::size_t j = 0; j < 40; ++j) {
    sizes[j] = (j * 7919) % 97;
    for (std::size_t i = 0; i < j; i += 3) callers[j].push_back(i);  // file i requires file j
  }
  CallersFirst order = callersFirst(callers, sizes);
  CallersFirstQueue queue(order, sizes);
  std::vector<int> finishedAt(40, -1);
  std::vector<std::vector<int>> startedAfter(40);
  std::mutex m;
  int clock = 0;
  auto worker = [&] {
    while (auto i = queue.take()) {
      {
        std::lock_guard<std::mutex> lock(m);
        for (std::size_t c : order.waitFor[*i]) startedAfter[*i].push_back(finishedAt[c]);
      }
      std::this_thread::yield();
      {
        std::lock_guard<std::mutex> lock(m);
        finishedAt[*i] = ++clock;
      }
      queue.finished(*i);
    }
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  for (std::size_t j = 0; j < 40; ++j) {
    CHECK(finishedAt[j] > 0);
    for (int t : startedAfter[j]) CHECK(t > 0);  // every file it waits for had finished
  }
}
