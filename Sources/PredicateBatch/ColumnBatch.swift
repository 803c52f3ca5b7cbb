import PredicateSemantics
import PredicateSyntax
import PredicateValue

/// Items laid out for the batch engine: the items themselves (for clauses that run row by row)
/// and, for each key path the rules read, one typed column.
///
/// Build a batch once per set of items, with the key paths of every ``BatchProgram`` that will
/// run on it (``BatchProgram/columnKeyPaths``); building is where key paths are read, so its cost
/// is separate from evaluation. A program evaluated on a batch that lacks one of its columns
/// reads that column during evaluation.
public struct ColumnBatch: Sendable {
    /// The items, one per row.
    public let rows: [Value]
    /// The columns, by key path.
    let columns: [[KeyComponent]: Column]

    /// The number of rows.
    public var count: Int { rows.count }

    /// Whether the rows are `SUBQUERY` elements, for which `null` reads as `nil`.
    let rowsAreElements: Bool

    /// A batch of `rows` with a column for each key path in `keyPaths`.
    public init(rows: [Value], keyPaths: [[KeyComponent]]) {
        self.init(rows: rows, keyPaths: keyPaths, rowsAreElements: false)
    }

    init(rows: [Value], keyPaths: [[KeyComponent]], rowsAreElements: Bool) {
        self.rows = rows
        self.rowsAreElements = rowsAreElements
        var columns: [[KeyComponent]: Column] = [:]
        for path in keyPaths where columns[path] == nil {
            columns[path] = Column(reading: path, from: rows, nullReadsAsNil: rowsAreElements)
        }
        self.columns = columns
    }

    /// A batch of `rows` with the columns `program` reads.
    public init(rows: [Value], for program: BatchProgram) {
        self.init(rows: rows, keyPaths: program.columnKeyPaths)
    }

    /// A batch of the host's own objects with the columns `program` reads.
    public init<Item: KeyValueCoding>(items: [Item], for program: BatchProgram) {
        self.init(rows: items.map { .object($0) }, keyPaths: program.columnKeyPaths)
    }

    /// The column for `path`: the batch's own, or read now.
    func column(_ path: [KeyComponent]) -> Column {
        columns[path] ?? Column(reading: path, from: rows, nullReadsAsNil: rowsAreElements)
    }

    /// How the column for `path` is stored (`booleans`, `integers`, `doubles`, `dates`,
    /// `strings`, `values`, `unavailable`), or `nil` when the batch has no such column.
    public func storage(of path: [KeyComponent]) -> String? { columns[path]?.kindName }
}
