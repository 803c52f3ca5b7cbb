import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Items laid out for the batch engine: for each key path the rules read, one typed column, and
/// the items themselves for clauses that run row by row.
///
/// Build a batch once per set of items, with the key paths of every ``BatchProgram`` that will
/// run on it (``BatchProgram/columnKeyPaths``); building is where key paths are read, so its cost
/// is separate from evaluation. A program evaluated on a batch that lacks one of its columns
/// reads that column during evaluation.
public struct ColumnBatch: Sendable {
    /// The number of rows.
    public internal(set) var count: Int
    /// The rows, which columns are read from and which clauses on the scalar VM take whole.
    var store: any RowStore
    /// The columns, by key path.
    var columns: [[KeyComponent]: Column]

    /// A batch of `rows` with a column for each key path in `keyPaths`.
    public init(rows: [Value], keyPaths: [[KeyComponent]]) {
        self.init(rows: rows, keyPaths: keyPaths, rowsAreElements: false)
    }

    /// A batch of `rows` with the columns `program` reads.
    public init(rows: [Value], for program: BatchProgram) {
        self.init(rows: rows, keyPaths: program.columnKeyPaths)
    }

    /// A batch of the host's own objects with a column for each key path in `keyPaths`. Fields of
    /// the objects' schema are read from `Item` itself; an object is boxed as a ``Value`` only for
    /// the rows a clause runs on the scalar VM.
    public init<Item: KeyValueCoding>(items: [Item], keyPaths: [[KeyComponent]]) {
        self.init(items: items[...], keyPaths: keyPaths)
    }

    /// A batch of a slice of the host's objects (the first row is the slice's first object).
    public init<Item: KeyValueCoding>(items: ArraySlice<Item>, keyPaths: [[KeyComponent]]) {
        self.init(store: ItemStore(items: items), keyPaths: keyPaths)
    }

    /// A batch of the host's own objects with the columns `program` reads.
    public init<Item: KeyValueCoding>(items: [Item], for program: BatchProgram) {
        self.init(items: items, keyPaths: program.columnKeyPaths)
    }

    /// With `rowsAreElements`, the rows are `SUBQUERY` elements, for which `null` reads as `nil`.
    init(rows: [Value], keyPaths: [[KeyComponent]], rowsAreElements: Bool) {
        self.init(store: ValueStore(rows: rows, rowsAreElements: rowsAreElements), keyPaths: keyPaths)
    }

    private init(store: any RowStore, keyPaths: [[KeyComponent]]) {
        count = store.count
        self.store = store
        var distinct: [[KeyComponent]] = []
        var seen: Set<[KeyComponent]> = []
        for path in keyPaths where seen.insert(path).inserted { distinct.append(path) }
        columns = Dictionary(uniqueKeysWithValues: zip(distinct, store.columns(distinct, rows: 0..<store.count)))
    }

    /// The item of row `index`.
    public func row(_ index: Int) -> Value { store.row(index) }

    /// The column for `path`: the batch's own, or read now.
    func column(_ path: [KeyComponent]) -> Column { columns[path] ?? store.column(path, rows: 0..<count) }

    /// How the column for `path` is stored (`booleans`, `integers`, `doubles`, `dates`,
    /// `strings`, `values`, `unavailable`), or `nil` when the batch has no such column.
    public func storage(of path: [KeyComponent]) -> String? { columns[path]?.kindName }
}
