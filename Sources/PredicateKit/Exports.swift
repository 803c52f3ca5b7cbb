// One import for embedding: the value model, the language, the engines, File Provider items,
// actions and rule sets. The SQL back ends stay separate products: they link system libraries
// (SQLite, libpq) that an app filtering in memory should not need.
@_exported import PredicateActions
@_exported import PredicateBatch
@_exported import PredicateFileProvider
@_exported import PredicateInterpreter
@_exported import PredicateSemantics
@_exported import PredicateSyntax
@_exported import PredicateVM
@_exported import PredicateValue
