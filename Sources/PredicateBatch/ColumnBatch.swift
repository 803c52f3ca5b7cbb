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
    public let count: Int
    private let rowValue: @Sendable (Int) -> Value
    /// The columns, by key path.
    let columns: [[KeyComponent]: Column]
    /// Reads a column that was not built in advance.
    private let reader: @Sendable ([KeyComponent]) -> Column

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
        count = items.count
        let start = items.startIndex
        rowValue = { .object(items[start + $0]) }
        reader = { Column(reading: $0, from: items) }
        columns = ColumnBatch.columns(keyPaths, reader)
    }

    /// A batch of the host's own objects with the columns `program` reads.
    public init<Item: KeyValueCoding>(items: [Item], for program: BatchProgram) {
        self.init(items: items, keyPaths: program.columnKeyPaths)
    }

    /// With `rowsAreElements`, the rows are `SUBQUERY` elements, for which `null` reads as `nil`.
    init(rows: [Value], keyPaths: [[KeyComponent]], rowsAreElements: Bool) {
        count = rows.count
        rowValue = { rows[$0] }
        reader = { Column(reading: $0, from: rows, nullReadsAsNil: rowsAreElements) }
        columns = ColumnBatch.columns(keyPaths, reader)
    }

    private static func columns(
        _ keyPaths: [[KeyComponent]], _ reader: ([KeyComponent]) -> Column
    ) -> [[KeyComponent]: Column] {
        var columns: [[KeyComponent]: Column] = [:]
        for path in keyPaths where columns[path] == nil { columns[path] = reader(path) }
        return columns
    }

    /// The item of row `index`.
    public func row(_ index: Int) -> Value { rowValue(index) }

    /// The column for `path`: the batch's own, or read now.
    func column(_ path: [KeyComponent]) -> Column { columns[path] ?? reader(path) }

    /// How the column for `path` is stored (`booleans`, `integers`, `doubles`, `dates`,
    /// `strings`, `values`, `unavailable`), or `nil` when the batch has no such column.
    public func storage(of path: [KeyComponent]) -> String? { columns[path]?.kindName }
}
