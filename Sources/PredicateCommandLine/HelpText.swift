/// The texts of `--help` and of usage errors. Kept together so they stay consistent.
enum HelpText {
    static func usage(for subcommand: Subcommand?) -> String {
        switch subcommand {
        case .format:
            return "usage: predicate format <rule> [--args JSON-ARRAY] [--expression] [--strict] [--round-trip]"
        case .eval:
            return """
                usage: predicate eval <rule> [--object FILE|-] [--args JSON-ARRAY] [--vars JSON-OBJECT] [--strict]
                                      [--engine vm|interpreter] [--max-steps N]
                       predicate eval --jsonl [--strict] [--engine vm|interpreter] [--max-steps N] < cases.jsonl
                """
        case .disasm: return "usage: predicate disasm <rule> [--args JSON-ARRAY] [--expression] [--strict]"
        case .check:
            return """
                usage: predicate check <rule> [--format FORMAT] [--fail-on LEVEL] [--context activation|interaction]
                       predicate check <Info.plist|directory|-> ... [--format FORMAT] [--fail-on LEVEL] [--plist]
                """
        case .actions:
            return """
                usage: predicate actions <Info.plist|-> --items FILE|- [--explain] [--expect FILE|-] [--max-steps N]
                                         [--json]
                       predicate actions <Info.plist|-> --interaction FILE|- [--explain] [--expect FILE|-] [--json]
                """
        case .filter:
            return """
                usage: predicate filter <rule> --items FILE.jsonl|- [--count] [--chunk-size N] [--args JSON-ARRAY]
                                        [--max-steps N]
                """
        case .explain:
            return """
                usage: predicate explain <rule> [--object FILE|- | --items FILE|-] [--vars JSON-OBJECT] [--args JSON-ARRAY]
                                         [--json]
                """
        case .sql:
            return """
                usage: predicate sql <rule> [--dialect sqlite|postgres] [--mapping FILE|-] [--args JSON-ARRAY]
                                     [--explain | --json] [--strict]
                """
        case .help, nil:
            return
                "usage: predicate <subcommand> [options]   (format, eval, disasm, check, actions, filter, explain, sql, help)"
        }
    }

    static func help(for subcommand: Subcommand?) -> String {
        switch subcommand {
        case .format: return format
        case .eval: return eval
        case .disasm: return disasm
        case .check: return check
        case .actions: return actions
        case .filter: return filter
        case .explain: return explain
        case .sql: return sql
        case .help, nil: return main
        }
    }

    /// The input limits (issue 18), from the constants that enforce them, for every subcommand
    /// that reads a document or a selection.
    static let limits = """
        LIMITS
          A document read whole (--object, --items, --interaction, --expect, an Info.plist, from a
          file or standard input) is at most \(maximumDocumentBytes >> 20) MiB; a selection (--items) holds at most
          \(grouped(maximumSelectionCount)) items. A larger one is an input error (exit 2) before anything is evaluated. filter
          streams its lines and has no size limit.
        """

    /// `100000` as `100,000`.
    static func grouped(_ number: Int) -> String {
        var digits = Array(String(number))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return String(digits)
    }

    static let main = """
        predicate - parse, print and evaluate NSPredicate format strings

        USAGE
          predicate <subcommand> [options]

        SUBCOMMANDS
          format <rule>      Parse a rule and print its canonical form.
          eval <rule>        Evaluate a rule against an object (bytecode VM, or --engine
                             interpreter for the reference interpreter).
          eval --jsonl       Run test cases given as JSON Lines on standard input, one result
                             line per input line.
          disasm <rule>      Compile a rule and print its bytecode listing.
          check <rule>       Check a File Provider activation rule before it ships: unknown keys
                             (with a did-you-mean), type mismatches, constant comparisons, ...
          check Info.plist   Check the rule of every action in NSExtensionFileProviderActions
                             and of every NSFileProviderUserInteractions entry, and their
                             structure, at the file's lines (--format xcode|github|sarif|json).
          actions Info.plist --items FILE
                             Show which actions a selection of items enables, and why the
                             others are hidden (--interaction FILE: which user-interaction
                             alerts an operation triggers).
          explain <rule> --object FILE
                             Show the rule's tree with the value every part produced, and what
                             short-circuit evaluation skipped: which clause made it false.
          filter <rule> --items FILE.jsonl
                             Stream the JSON lines (items) a rule matches, any file size.
          sql <rule> --dialect sqlite|postgres [--mapping FILE]
                             Translate a rule into a parameterised SQL WHERE clause, with what
                             the database cannot decide left as a residual to re-check.
          help [subcommand]  Show this help, or a subcommand's (same as <subcommand> --help).
          help items         The properties of a File Provider item in JSON, with their defaults.
          --version          Print the tool's version.

        A rule is one argument; quote it for the shell:  predicate format 'name == "x"'
        Use -- before a rule that starts with '-':       predicate format -- '-1 < x'

        EXIT CODES
          0  success (for eval and explain: the rule is true)
          1  the rule is false, findings were reported, or nothing was shown or matched
          2  usage error, input error, or a rule that does not parse
        Each subcommand's --help gives its own.

        \(limits)

        Diagnostics go to standard error. Each stream is coloured only when it is a terminal and
        NO_COLOR is not set; eval, check, actions, explain and sql take --json for
        machine-readable output.
        """

    static let format = """
        predicate format - print a rule's canonical form

        USAGE
          predicate format <rule> [--args JSON-ARRAY] [--expression] [--strict] [--round-trip]

        Parses <rule> and prints its canonical format string (Apple's predicateFormat) on
        standard output. Warnings (legal but doubtful constructs) go to standard error with the
        source line and a caret; the exit code stays 0.

        Apple's text does not always mean what the rule meant when parsed again: the double
        10.0 prints 10, which parses as an integer, and a date prints as CAST(<seconds with six
        decimals>, "NSDate"). --round-trip prints text that parses back to the same rule (10.0
        stays 10.0; doubles keep all their digits).

        OPTIONS
          --args JSON-ARRAY  Values for the format specifiers %@, %K, %d, ..., consumed left to
                             right, for example --args '["name", 3]'. Values map as for
                             'eval --jsonl' (see 'predicate help eval').
          --expression       Parse <rule> as an expression (NSExpression) instead of a predicate.
          --strict           Reject unparenthesised mixes of AND and OR instead of warning.
          --round-trip       Print text that parses back to the same rule instead of Apple's.
          -h, --help         Show this help.

        EXIT CODES
          0  printed (possibly with warnings)
          2  the rule does not parse (the diagnostic goes to standard error), or bad options or
             --args
        """

    static let eval = """
        predicate eval - evaluate rules

        USAGE
          predicate eval <rule> [--object FILE|-] [--args JSON-ARRAY] [--vars JSON-OBJECT] [--strict]
                                [--engine vm|interpreter] [--max-steps N] [--json]
          predicate eval --jsonl [--strict] [--engine vm|interpreter] [--max-steps N] < cases.jsonl

        SINGLE RULE
          Parses <rule> and evaluates it against the object read as JSON from FILE (or from
          standard input for -; no --object means the nil object). Prints true or false.
          Exit code: 0 true, 1 false, 2 parse, input or evaluation error. An evaluation error
          (an unknown key, values that cannot be ordered, ...) is reported like a syntax error,
          with a caret under the sub-expression that failed. With --json, one JSON object:
          {"result": true|false, "error": null} or {"result": null, "error": "...", "start",
          "end"} (UTF-8 byte offsets of the failing text).

        JSON LINES (--jsonl)
          Reads standard input as JSON Lines, one test case per line:

            {"id": <any>, "predicate": "<format>", "args": [<values>], "vars": {<name>: <value>},
             "object": <value>}

            id         Any JSON value; echoed in the result. Optional.
            predicate  The format string. Required; must be a string.
            args       Values for the format specifiers, in order. Optional; must be an array.
            vars       Values for $variables, by name. Optional; must be an object.
            object     The object the rule is evaluated against. Optional; absent means nil.
          An explicit null for args, vars or object means the same as leaving it out. Other
          keys are ignored. With duplicate keys the last one counts.

          Writes exactly one line per input line, in order, with the keys in this order:

            {"id":<same>,"parsed":true|false,"format":"<canonical>"|null,
             "result":true|false|null,"error":"<message>"|null}

            id         The input's id as JSON, re-serialised compactly (number text kept as
                       written); null if missing or if the line is not a JSON object.
            parsed     Whether the predicate parsed.
            format     The canonical format string of the parsed predicate, or null.
            result     The evaluation result (by the engine --engine names: the VM by default,
                       or the reference interpreter), or null when the line has an error.
            error      null, or why the line has no result:
                         line:column: error: message   the predicate does not parse, or its
                                                       evaluation failed at that position
                         invalid JSON: line:column: ... the line is not JSON
                         expected a JSON object, ...    the line is JSON but not an object
                         missing key 'predicate', 'args' must be an array, ...
                         invalid value: $.path: ...     a malformed $date, $data or $double
                         blank line: ...                the line is empty or only whitespace

          A malformed line gets its error line and processing continues with the next line;
          blank lines get an error line too, so input and output line counts always match.
          A line ends at LF (a CR before it is ignored); an unterminated last line counts if it
          is not empty. Warnings are not reported in this mode. Exit code: 0 when all input was
          read (whatever the per-line errors), 2 for usage errors or when input cannot be read.

        VALUES (object, args, vars, --object, --args, --vars)
          JSON maps to the predicate language's values as follows:
            null                  nil at the top level and as an object member; null (NSNull)
                                  as an array element (arrays never hold nil)
            true, false           bool
            integer               int if it fits Int64, else uint if it fits UInt64, else double
            1.5, 1e3, -0.0        double (any number with a fraction or an exponent)
            "text"                string
            [ ... ]               array
            {"$date": n}          date, n seconds since 2001-01-01T00:00:00Z
            {"$data": "base64"}   data, standard padded Base64
            {"$double": "NaN"}    double NaN; also "Infinity", "-Infinity" or a number
            { ... }               dictionary (any other object)
          A one-key object with a $date, $data or $double key and a malformed payload is an error.

        OPTIONS
          --object FILE|-    The object, as JSON, from FILE or standard input.
          --args JSON-ARRAY  Values for the format specifiers, in order.
          --vars JSON-OBJECT Values for $variables.
          --jsonl            Process JSON Lines from standard input (see above).
          --json             Write the single rule's result as JSON (see above).
          --engine NAME      vm (the default: compile to bytecode and run it) or interpreter
                             (the reference interpreter, which defines the meaning).
          --max-steps N      The evaluation step limit of the rule, or of each case with --jsonl
                             (default 10,000,000): lower it to stop a costly rule sooner.
          --strict           Reject unparenthesised mixes of AND and OR instead of warning.
          -h, --help         Show this help.

        \(limits)
        """

    static let disasm = """
        predicate disasm - print a rule's bytecode

        USAGE
          predicate disasm <rule> [--args JSON-ARRAY] [--expression] [--strict]

        Compiles <rule> and prints the program: one instruction a line with its offset,
        mnemonic and operands, what the operands name (constants, key paths, variables, jump
        targets), and the line:column of the source text the instruction evaluates.

        OPTIONS
          --args JSON-ARRAY  Values for the format specifiers, in order.
          --expression       Compile <rule> as an expression (NSExpression) instead of a predicate.
          --strict           Reject unparenthesised mixes of AND and OR instead of warning.
          -h, --help         Show this help.

        EXIT CODES
          0  printed
          2  the rule does not parse or compile, or bad options
        """

    static let check = """
        predicate check - find mistakes in File Provider activation rules and Info.plists

        USAGE
          predicate check <rule> [--format FORMAT] [--fail-on LEVEL] [--context activation|interaction]
          predicate check <Info.plist|directory|-> ... [--format FORMAT] [--fail-on LEVEL] [--plist]

        Checks a rule against the File Provider activation context, SELF =
        {fileproviderItems: [item]}, without running it (or, with --context interaction, against
        the NSFileProviderUserInteractions context: action, sourceItem, destinationItem,
        sourceItemsCount, domainUserInfo). An operand ending in .plist, a directory, or - (standard
        input) is read as an Info.plist, XML or binary (with --plist, every operand is): the
        activation rule of every action in NSExtensionFileProviderActions is checked, and the
        ActivationRule of every entry of NSFileProviderUserInteractions (and of its
        SubInteractions, numbered 1, 1.1, ...) against the user-interaction context. A directory
        stands for every *Info.plist under it that declares File Provider rules (build folders,
        .git and hidden folders are skipped).

        Every finding in an Info.plist carries the file's own line and column: the rule is
        located in the XML, entities (&amp;) and CDATA accounted for. A binary plist has no
        lines; its findings give the key path of the value. Every problem of a file is reported
        in one run:
          - XML that does not parse, at its line and column (a raw && inside <string>: write
            &amp;&amp; or AND)
          - actions without an identifier, a name or a rule; duplicate identifiers; duplicate
            keys; keys one or two edits from a documented one, with a did-you-mean
          - interactions without ActivationRule, or with neither Alert nor SubInteractions
        And in each rule, with a caret under the offending text and a fix-it where one is known:
          - keys an item does not have, with a did-you-mean ($i.uploadded -> uploaded); .count
            on a collection (the number of elements is @count)
          - context keys spelt differently from fileproviderItems (fileProviderItems)
          - variables that are never bound ($fileproviderItems)
          - type mismatches: a string compared with a number, @sum over strings, UTI operators
            on contentType (a type object) instead of contentType.identifier
          - type identifiers one letter from a known one ("public.foldr")
          - BETWEEN without a two-element range, regular expressions that do not compile
          - AND and OR mixed without parentheses, and the parser's other warnings
          - SUBQUERY predicates that never use their variable (bare keys read SELF)
          - ANY ... == nil, and key paths that map over the selection and continue through an
            optional value (one item without it makes the rule fail)
          - rules or comparisons that are always true or always false: two constants, a count
            against a negative bound, a value that is never nil compared with nil,
            FALSEPREDICATE, contradictions (x == YES AND x == NO, @count > 0 AND @count == 0),
            masks that select no bit ((capabilities & 0) != 0)
          - with --context interaction, an action name that does not exist (action == 'move')
        A rule that does not parse is reported as one error finding, at its cause where the
        parser can tell (an unclosed '(' at the '(').

        FORMATS (--format)
          text     Readable text grouped by action, ending with a count of errors and warnings.
          xcode    file:line:column: error: message, as clang prints (a note for each fix-it), so
                   an Xcode Run Script phase shows findings inline.
          github   GitHub Actions annotations (::error file=...,line=...,col=...::message).
          sarif    A SARIF 2.1.0 log with one run, for code-scanning services.
          json     One JSON object a line, one line per file (--json is short for it):
            {"rule": "...", "findings": [FINDING, ...]}                       (a rule)
            {"file": "...", "actions": [{"identifier", "name", "rule", "line", "column",
             "findings"}, ...], "interactions": [{"position", "title", "rule", "line", "column",
             "findings"}, ...], "findings": [FINDING, ...], "errors": N, "warnings": N}
            {"file": "...", "error": "..."}                                   (unreadable)
          ("interactions" only when the Info.plist declares some.)
          FINDING = {"severity": "error"|"warning", "line", "column" (in the file, null in a
          binary plist), "keyPath", "subject", "message"}, and for a finding inside a rule also
          "ruleLine", "ruleColumn", "start", "end" (UTF-8 byte offsets in the rule), "text",
          "fixIt": {"start", "end", "replacement", "fixedRule"}|null.

        OPTIONS
          --format FORMAT    text (the default), json, github, sarif or xcode.
          --json             The same as --format json.
          --fail-on LEVEL    error (the default): exit 1 for errors; warning: for warnings too;
                             never: exit 0 whatever the findings (2 still for unreadable input).
          --plist            Read every operand as an Info.plist whatever its name.
          --context NAME     activation (the default) or interaction: the SELF a rule is
                             checked against. Info.plist actions are always activation rules.
          -h, --help         Show this help.

        EXIT CODES
          0  no findings at the --fail-on level
          1  findings at that level (by default, errors, including a rule that does not parse)
          2  usage error, or a file that cannot be read (the other files are still checked and
             reported)

        \(limits)
        """

    static let actions = """
        predicate actions - which File Provider actions a selection enables

        USAGE
          predicate actions <Info.plist|-> --items FILE|- [--explain] [--expect FILE|-] [--max-steps N]
                            [--json]
          predicate actions <Info.plist|-> --interaction FILE|- [--explain] [--expect FILE|-] [--json]

        Reads the actions declared in NSExtensionFileProviderActions (anywhere under NSExtension)
        of an Info.plist in XML or binary form, compiles every activation rule once, and
        evaluates each against SELF = {fileproviderItems: [the selected items]}. An action whose
        rule is missing, does not parse or fails to evaluate is hidden, and the reason is given;
        an action whose rule is false is hidden too, and said to be (in yellow on a terminal,
        errors in red). With --explain, each false rule's deciding clause (through AND, the
        first false operand) and the values it read are shown, and each error's caret. An
        incomplete action (no name, say) does not stop the run: it is evaluated if it has an
        identifier, and the problem is a warning at its line (predicate check reports them all).

        ITEMS
          FILE (or standard input for -) holds a JSON array with one object per selected item,
          in selection order, with item properties under Apple's names or their aliases:
            [{"itemIdentifier": "1", "filename": "Notes.txt", "contentType": "public.plain-text",
              "isUploaded": true, "userInfo": {"com.example.locked": true}}]
          contentType is given as its identifier; dates as ISO 8601 strings or
          {"$date": seconds since 2001}; capabilities as a number or an array of names.
          Unknown properties are errors, with a did-you-mean. 'predicate help items' lists every
          property, its JSON type and its default.

        OUTPUT
          One line per action, in declared order: "shown" or "hidden", the identifier and name,
          and why a hidden action is hidden ("the rule is false", or "error: ..."); then a
          count. With --json:
            {"enabled": [identifier, ...],
             "actions": [{"identifier", "name", "enabled": true|false, "error": "..."|null}, ...],
             "differences": [...]}                                       (with --expect)
          With --explain, a hidden action whose rule is false also has
          "false": {"clause": "...", "values": ["text = value", ...]}.
          An input error with --json is {"error": "..."}.

        EXPECTED RESULTS
          --expect FILE compares the run with what FILE expects: a JSON array of the action
          identifiers that must be shown, or an object with "enabled" (identifiers) and/or
          "matched" (interaction positions, "1.1"); a saved --json run is such an object. Each
          difference is printed, and the exit code is 0 when there is none, 1 otherwise.

        USER INTERACTIONS
          With --interaction FILE, the NSFileProviderUserInteractions of the Info.plist are
          evaluated for one operation (SPEC 5.4), given as a JSON object:
            {"action": "Move", "sourceItems": [ITEM, ...], "destinationItem": ITEM,
             "sourceItemsCount": 3, "domainUserInfo": {...}}
          (all but "action" optional; action is Move, MoveOut, MoveIn, Copy, CopyOut, CopyIn,
          Trash, Delete, Rename, Create or ExcludeFromSync). Each top-level rule runs once per
          source item (once without sourceItem when there are none), with sourceItemsCount the
          operation's count; a sub-interaction runs only when its parent matched, over the items
          the parent matched, with sourceItemsCount their number. One line per entry: "alert"
          (its rule matched an item, so its alert is shown), "no", or "skipped" (its parent
          matched nothing); errors make the rule false for that item and are reported. With
          --json, "interactions": [{"position", "title", "evaluated", "matched", "matchedItems",
          "evaluations", "errors": [...]}, ...]. --items and --interaction can be combined.

        OPTIONS
          --items FILE|-     The selection, as a JSON array of item objects.
          --interaction FILE|-
                             An operation to evaluate the user interactions for.
          --explain          Say why each hidden action is hidden: the deciding clause and its
                             values, or the error with a caret.
          --expect FILE|-    The expected outcome (see EXPECTED RESULTS).
          --max-steps N      The evaluation step limit of each rule (default 10,000,000); a rule
                             over a huge selection may need more.
          --json             Write JSON instead of text.
          -h, --help         Show this help.
        One of --items and --interaction is required; standard input (-) feeds one of them.
        Output is coloured on a terminal.

        EXIT CODES
          0  at least one action is shown, or one interaction matched (with --expect: as expected)
          1  no action is shown and no interaction matched (with --expect: a difference)
          2  usage error, or an Info.plist, items or interaction file that cannot be read

        \(limits)
        """

    static let filter = """
        predicate filter - stream the items a rule matches

        USAGE
          predicate filter <rule> --items FILE.jsonl|- [--count] [--chunk-size N] [--args JSON-ARRAY]
                                  [--max-steps N]

        Reads FILE.jsonl (standard input for -), one JSON value a line (usually an object of an
        item's properties, SELF for the rule), and writes every line the rule matches, unchanged
        and in order. Lines are read and evaluated a chunk at a time (16384 lines by default, by the
        batch engine on every core), so the whole file is never in memory. Blank lines are skipped. An item on which the rule
        fails to evaluate does not match (as an activation rule's error hides its action).

        OPTIONS
          --items FILE|-     The items, one JSON value a line. Required.
          --count            Print only the number of matching lines.
          --chunk-size N     Lines evaluated together (default 16384).
          --args JSON-ARRAY  Values for format specifiers (%@, %K, ...) in the rule.
          --max-steps N      The evaluation step limit of each line (default 10,000,000): a line
                             whose rule spends it does not match, like any line that fails.
          --strict           Make parser warnings errors.
          -h, --help         Show this help.

        EXIT CODES
          0  at least one line matched
          1  no line matched
          2  usage error, a rule that does not parse, or a line that is not valid JSON (reported
             with its line number; the lines before it have been written)
        """

    static let explain = """
        predicate explain - why a rule is true or false for an object

        USAGE
          predicate explain <rule> [--object FILE|- | --items FILE|-] [--vars JSON-OBJECT]
                                   [--args JSON-ARRAY] [--json]

        Evaluates the rule with the reference interpreter against the object (JSON; standard
        input for -) and prints the rule as a tree: every sub-predicate with true or false, every
        sub-expression with its value, SUBQUERY elements one by one (the first 20), the operands
        AND, OR and TERNARY skipped (not evaluated), and where an error arose. The evaluation is
        the interpreter's own, under the same limits as eval. The tree is bounded: a node shows
        at most 20 elements and 20 other children, the whole tree at most 5,000 nodes, and
        "… N more not shown" counts the rest (evaluated, but not recorded). Past these bounds
        the path to an error is still shown, so the tree always leads to where it arose.

          $ predicate explain 'isUploaded == NO AND documentSize > 1e6' --object item.json
          false  isUploaded == NO AND documentSize > 1e6
          ├─ true   isUploaded == NO
          │  └─ isUploaded  = false
          └─ false  documentSize > 1e6
             └─ documentSize  = 5

        OUTPUT
          The tree as text (coloured on a terminal), or with --json one object:
            {"rule", "result": true|false|null, "error": "..."|null, "tree": NODE}
          NODE = {"kind", "text", "start", "end" (UTF-8 byte offsets), "outcome": "true"|"false"|
          "value"|"error"|"skipped", "value"?, "error"?, "element"? (SUBQUERY), "children": [NODE],
          "omitted"? (children evaluated but not recorded, when there are any)}

        OPTIONS
          --object FILE|-    The object (SELF), as JSON. Without it SELF is nil.
          --items FILE|-     Instead of --object: a selection, as for predicate actions (a JSON
                             array of File Provider items); SELF is the activation context
                             {fileproviderItems: [items]}, so "why is my action hidden?" is
                             answered with real items (an unknown key is an error, as on a device).
          --vars JSON-OBJECT Variable bindings ($name).
          --args JSON-ARRAY  Values for format specifiers in the rule.
          --max-steps N      The evaluation step limit (default 10,000,000).
          --json             Write JSON instead of the text tree; each collection value shows its
                             first 20 elements, with "valueCount" when it has more.
          --strict           Make parser warnings errors.
          -h, --help         Show this help.

        EXIT CODES
          0  the rule is true
          1  the rule is false
          2  usage or input error, a rule that does not parse, or an evaluation error (the tree
             shows where; standard error shows it with a caret)

        \(limits)
        """

    static let sql = """
        predicate sql - the SQL a rule becomes where the items live

        USAGE
          predicate sql <rule> [--dialect sqlite|postgres] [--mapping FILE|-] [--args JSON-ARRAY]
                               [--explain | --json] [--strict]

        Translates <rule> into the WHERE clause an item store runs (PredicateSQLite,
        PredicatePostgres) and prints it with its parameters, numbered as the dialect numbers
        them (?1 for SQLite, $1 for PostgreSQL). Constants are always parameters, never SQL
        text. A clause is exact when the rows it keeps are the rows the rule is true of;
        otherwise it keeps a superset, and the residual printed below it is what each kept row
        must still pass (the stores re-check it with the interpreter). No database is opened.

          $ predicate sql 'documentSize > 1e6 AND filename LIKE[c] "*.pdf"' --dialect postgres
          WHERE ("items"."documentSize" IS NOT NULL AND "items"."documentSize" > $1::double precision)
            $1 = 1000000.0
          residual: filename LIKE[c] "*.pdf"

        MAPPING (--mapping FILE)
          A JSON object naming the table and how each key of the rule is stored:
            {"table": "items", "primaryKey": "id",
             "columns": {"documentSize": {"column": "size", "type": "integer", "nullable": true}},
             "json": {"userInfo": "user_info"},
             "children": {"tags": {"table": "tags", "foreignKey": "item_id", "position": "position",
                                   "columns": {"label": {"column": "label", "type": "text"}}}}}
          Types are integer, real, text, boolean and date; only "table" is required. Without
          --mapping, the table is "items", every key path of the rule is a column of the same
          name with dots as _ (parent.name is parent_name), typed from the constants it is
          compared with (text when nothing says), and userInfo.key reads the JSON column
          userInfo. A key the mapping does not store is an error at its place in the rule.

        OUTPUT
          The clause, one line per parameter, the residual ("none (exact)" when the clause is
          exact) and, for SQLite, the package's SQL functions it calls (SQLiteDatabase registers
          them). With --explain, every comparison of the rule follows, marked "exact" or
          "re-checked". With --json, one object:
            {"sql": "<WHERE clause>", "parameters": [<values>], "exact": true|false,
             "residual": "<rule>"|null, "functions": ["pvm_like", ...]}
          An error with --json is {"error": "..."}.

        OPTIONS
          --dialect NAME     sqlite (the default) or postgres.
          --mapping FILE|-   The table mapping, as JSON (see MAPPING).
          --args JSON-ARRAY  Values for format specifiers in the rule.
          --explain          Mark each comparison exact or re-checked.
          --json             Write JSON instead of text.
          --strict           Make parser warnings errors.
          -h, --help         Show this help.

        EXIT CODES
          0  translated (exact or with a residual)
          2  usage error, a rule that does not parse, a mapping that cannot be read, or a key the
             mapping does not store
        """
}
