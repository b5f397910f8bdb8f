-- A host start-up file: the string library under another name, set where the
-- files that use it cannot show it (.ljcheck.toml names it in [globals]).
str = string
