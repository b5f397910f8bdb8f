// Child processes for integration tests (see process.h): fork, exec, and two
// pipes drained together so that a chatty child never blocks on a full one.
#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace ljcheck::testing {
namespace {

void closeBoth(int fds[2]) {
  close(fds[0]);
  close(fds[1]);
}

// In the child: wire the pipes to stdout and stderr, then exec. Never returns.
[[noreturn]] void execChild(const std::vector<std::string>& argv, const std::string& workingDir, int out[2],
                            int err[2]) {
  int devNull = open("/dev/null", O_RDONLY);
  if (devNull >= 0) dup2(devNull, STDIN_FILENO);
  dup2(out[1], STDOUT_FILENO);
  dup2(err[1], STDERR_FILENO);
  closeBoth(out);
  closeBoth(err);
  if (!workingDir.empty() && chdir(workingDir.c_str()) != 0) {
    std::perror(workingDir.c_str());
    _exit(127);
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  std::perror(args[0]);
  _exit(127);
}

}  // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, const std::string& workingDir, int timeoutSeconds) {
  if (argv.empty()) throw std::invalid_argument("runProcess: no command");
  int out[2], err[2];
  if (pipe(out) != 0) throw std::runtime_error("runProcess: pipe failed");
  if (pipe(err) != 0) {
    closeBoth(out);
    throw std::runtime_error("runProcess: pipe failed");
  }
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    closeBoth(out);
    closeBoth(err);
    throw std::runtime_error("runProcess: fork failed");
  }
  if (pid == 0) execChild(argv, workingDir, out, err);
  close(out[1]);
  close(err[1]);

  ProcessResult result;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  std::array<pollfd, 2> fds{pollfd{out[0], POLLIN, 0}, pollfd{err[0], POLLIN, 0}};
  std::array<std::string*, 2> into{&result.out, &result.err};
  std::array<char, 65536> buffer{};
  int openPipes = 2;
  while (openPipes > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timedOut = true;
      kill(pid, SIGKILL);
      break;
    }
    int ready = poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      ssize_t n = read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        into[i]->append(buffer.data(), static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --openPipes;
      }
    }
  }
  for (auto& fd : fds)
    if (fd.fd >= 0) close(fd.fd);
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  result.maxResidentKb = usage.ru_maxrss;
  if (WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  if (result.timedOut) result.exitCode = -1;
  return result;
}

ProcessResult runShell(const std::string& commandLine, int timeoutSeconds) {
  return runProcess({"/bin/sh", "-c", commandLine}, "", timeoutSeconds);
}

std::string shellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

ProcessResult runInLuajitHost(const std::string& luajit, const std::string& script, const std::string& workingDir,
                              int timeoutSeconds, const std::vector<std::string>& hostOptions) {
  std::vector<std::string> argv{"env", std::string("LUA_CPATH=") + LJCHECK_MODULE_DIR + "/?.so"};
  if (std::string preload = LJCHECK_HOST_PRELOAD; !preload.empty()) argv.push_back("LD_PRELOAD=" + preload);
  argv.push_back(luajit);
  argv.insert(argv.end(), hostOptions.begin(), hostOptions.end());
  argv.push_back(script);
  return runProcess(argv, workingDir, timeoutSeconds);
}

std::string freshDirectory(const std::string& path) {
  std::filesystem::remove_all(path);
  std::filesystem::create_directories(path);
  return path;
}

void writeFile(const std::string& path, std::string_view bytes) {
  std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace ljcheck::testing
