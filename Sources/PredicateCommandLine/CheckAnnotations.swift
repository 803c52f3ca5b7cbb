import PredicateSyntax
import PredicateValue

/// `check --format github|xcode|sarif`: findings as the annotations CI systems and IDEs place on
/// the file's own lines, so that no user writes a wrapper.
extension Session {
    mutating func writeAnnotations(
        _ findings: [CheckFinding], inputErrors: [(String, String)], format: OutputFormat
    ) {
        switch format {
        case .github:
            for (path, message) in inputErrors {
                output.write("::error file=\(Self.githubProperty(path))::\(Self.githubData(message))\n")
            }
            for finding in findings { output.write(Self.github(finding) + "\n") }
        case .xcode:
            for (path, message) in inputErrors { output.write("\(path): error: \(message)\n") }
            for finding in findings {
                output.write("\(finding.position): \(finding.severity.rawValue): \(finding.message)")
                output.write(finding.keyPathSuffix + "\n")
                if let fixIt = finding.fixItDescription {
                    output.write("\(finding.position): note: fix-it: \(fixIt)\n")
                }
            }
        case .sarif:
            output.write(Self.sarif(findings, inputErrors: inputErrors).serialized + "\n")
        case .text, .json:
            break
        }
    }

    /// A GitHub Actions workflow command: `::error file=…,line=…,col=…,title=…::message`.
    static func github(_ finding: CheckFinding) -> String {
        var properties = ["file=\(githubProperty(finding.file))"]
        if let line = finding.line, let column = finding.column { properties += ["line=\(line)", "col=\(column)"] }
        if let subject = finding.subject { properties.append("title=\(githubProperty(subject))") }
        var message = finding.message + finding.keyPathSuffix
        if let fixIt = finding.fixItDescription { message += "\nfix-it: \(fixIt)" }
        return "::\(finding.severity.rawValue) \(properties.joined(separator: ","))::\(githubData(message))"
    }

    /// Escapes a workflow command's message, as GitHub's toolkit does.
    static func githubData(_ text: String) -> String {
        text.replacingAll("%", with: "%25").replacingAll("\r", with: "%0D").replacingAll("\n", with: "%0A")
    }

    /// Escapes a workflow command's property value, where `:` and `,` are separators.
    static func githubProperty(_ text: String) -> String {
        githubData(text).replacingAll(":", with: "%3A").replacingAll(",", with: "%2C")
    }

    /// A SARIF 2.1.0 log with one run: what code-scanning services read.
    static func sarif(_ findings: [CheckFinding], inputErrors: [(String, String)]) -> JSON {
        let results = findings.map { finding -> JSON in
            var physical: [(key: String, value: JSON)] = [
                ("artifactLocation", .object([("uri", .string(uriReference(finding.file)))]))
            ]
            if let line = finding.line, let column = finding.column {
                physical.append(
                    (
                        "region",
                        .object([
                            ("startLine", .number(JSON.Number(Int64(line)))),
                            ("startColumn", .number(JSON.Number(Int64(column)))),
                        ])
                    ))
            }
            var location: [(key: String, value: JSON)] = [("physicalLocation", .object(physical))]
            if let keyPath = finding.keyPath, !keyPath.isEmpty {
                location.append(("logicalLocations", .array([.object([("fullyQualifiedName", .string(keyPath))])])))
            }
            var text = finding.message
            if let fixIt = finding.fixItDescription { text += " (fix-it: \(fixIt))" }
            return .object([
                ("ruleId", .string(finding.ruleFinding == nil ? "info-plist" : "activation-rule")),
                ("level", .string(finding.severity.rawValue)), ("message", .object([("text", .string(text))])),
                ("locations", .array([.object(location)])),
            ])
        }
        let notifications = inputErrors.map { path, message in
            JSON.object([("level", .string("error")), ("message", .object([("text", .string("\(path): \(message)"))]))])
        }
        let driver = JSON.object([
            ("name", .string("predicate")), ("version", .string(CommandLineTool.version)),
            (
                "rules",
                .array([
                    .object([
                        ("id", .string("activation-rule")),
                        ("shortDescription", .object([("text", .string("A finding inside an activation rule"))])),
                    ]),
                    .object([
                        ("id", .string("info-plist")),
                        ("shortDescription", .object([("text", .string("A problem in the Info.plist's structure"))])),
                    ]),
                ])
            ),
        ])
        let run = JSON.object([
            ("tool", .object([("driver", driver)])),
            (
                "invocations",
                .array([
                    .object([
                        ("executionSuccessful", .bool(inputErrors.isEmpty)),
                        ("toolExecutionNotifications", .array(notifications)),
                    ])
                ])
            ),
            ("results", .array(results)),
        ])
        return .object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")), ("version", .string("2.1.0")),
            ("runs", .array([run])),
        ])
    }
}

/// A path as a SARIF `uri` (a URI reference): bytes other than unreserved characters and `/`
/// percent-encoded, so that a path with spaces stays one valid reference.
func uriReference(_ path: String) -> String {
    var result = ""
    for byte in path.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"), UInt8(ascii: "/"):
            result.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = String(byte, radix: 16, uppercase: true)
            result += "%" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
    return result
}

extension String {
    /// The string with every `target` scalar replaced (scalars, so that a CR LF pair is two).
    func replacingAll(_ target: Unicode.Scalar, with replacement: String) -> String {
        var result = ""
        for scalar in unicodeScalars {
            if scalar == target { result += replacement } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }
}
