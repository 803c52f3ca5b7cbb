import Foundation

/// The scaling and speed-up charts as one standalone SVG image (plain text, no dependencies).
enum SVGChart {
    static let colors: [String: String] = [
        "interpreter": "#7f7f7f", "vm": "#1f77b4", "vm_unfused": "#aec7e8", "vm_batch": "#2ca02c",
        "vm_batch_all_cores": "#17becf", "vm_batch_with_columns": "#dbdb8d", "one_line_indices": "#c49c94",
        "batch_filter_by_hand": "#98df8a", "one_line_filter": "#8c564b",
        "foundation_predicate": "#d62728", "idiomatic": "#e377c2", "native_rows": "#ff7f0e",
        "native_columns": "#9467bd",
    ]

    static let width = 1000.0

    static func render(
        results: [EvaluationBenchmark.Result], scaling: [ScalingBenchmark.Point], machine: MachineDescription
    ) -> String {
        var svg = SVGText()
        var top = 30.0
        svg.text("predicate-bench — \(machine.summary)", x: 20, y: top, size: 15, weight: "bold")
        top += 20
        let engines = Engine.all.map(\.name)
        svg.legend(engines.map { ($0, colors[$0] ?? "#000") }, x: 20, y: top)
        top += 30

        let workloads = scaling.reduce(into: [String]()) { names, point in
            if !names.contains(point.workload) { names.append(point.workload) }
        }
        if !workloads.isEmpty {
            svg.text(
                "Scaling: median ns/item against the number of items (log–log; lower is better)", x: 20, y: top,
                size: 14, weight: "bold")
            top += 12
            let panelWidth = (width - 20) / Double(workloads.count)
            for (index, workload) in workloads.enumerated() {
                let points = scaling.filter { $0.workload == workload }
                drawScaling(
                    &svg, workload: workload, points: points, x: 20 + Double(index) * panelWidth, y: top,
                    width: panelWidth - 20, height: 260)
            }
            top += 320
        }
        if !results.isEmpty {
            svg.text(
                "Speed-up: interpreter ÷ engine, per rule (log scale; longer is faster)", x: 20, y: top, size: 14,
                weight: "bold")
            top += 10
            top += drawSpeedups(&svg, results: results, engines: engines, y: top)
        }
        return svg.document(width: width, height: top + 20)
    }

    private static func drawScaling(
        _ svg: inout SVGText, workload: String, points: [ScalingBenchmark.Point], x: Double, y: Double,
        width: Double, height: Double
    ) {
        let plot = (left: x + 55, right: x + width, top: y + 25, bottom: y + height)
        svg.text(workload, x: x + 55, y: y + 15, size: 13, weight: "bold")
        let sizes = points.map { Double($0.items) }
        let values = points.flatMap { $0.nanosecondsPerItem.compactMap(\.value) }.filter { $0 > 0 }
        guard let minSize = sizes.min(), let maxSize = sizes.max(), let low = values.min(), let high = values.max()
        else { return }
        let xRange = (floor(log10(minSize)), max(ceil(log10(maxSize)), floor(log10(minSize)) + 1))
        let yRange = (floor(log10(low)), max(ceil(log10(high)), floor(log10(low)) + 1))
        func px(_ value: Double) -> Double {
            plot.left + (log10(value) - xRange.0) / (xRange.1 - xRange.0) * (plot.right - plot.left)
        }
        func py(_ value: Double) -> Double {
            plot.bottom - (log10(value) - yRange.0) / (yRange.1 - yRange.0) * (plot.bottom - plot.top)
        }
        svg.rect(
            x: plot.left, y: plot.top, width: plot.right - plot.left, height: plot.bottom - plot.top,
            fill: "none", stroke: "#999")
        for decade in stride(from: xRange.0, through: xRange.1, by: 1) {
            let position = px(pow(10, decade))
            svg.line(x1: position, y1: plot.top, x2: position, y2: plot.bottom, stroke: "#e5e5e5")
            svg.text(countLabel(pow(10, decade)), x: position, y: plot.bottom + 16, size: 11, anchor: "middle")
        }
        for decade in stride(from: yRange.0, through: yRange.1, by: 1) {
            let position = py(pow(10, decade))
            svg.line(x1: plot.left, y1: position, x2: plot.right, y2: position, stroke: "#e5e5e5")
            svg.text(nanosecondLabel(pow(10, decade)), x: plot.left - 5, y: position + 4, size: 11, anchor: "end")
        }
        svg.text("items", x: (plot.left + plot.right) / 2, y: plot.bottom + 32, size: 11, anchor: "middle")
        for engine in Engine.all.map(\.name) {
            let line = points.compactMap { point -> (Double, Double)? in
                guard let value = point.nanosecondsPerItem.first(where: { $0.engine == engine })?.value, value > 0
                else { return nil }
                return (px(Double(point.items)), py(value))
            }
            let color = colors[engine] ?? "#000"
            svg.polyline(line, stroke: color)
            for (cx, cy) in line { svg.circle(cx: cx, cy: cy, radius: 3, fill: color) }
        }
    }

    /// Draws grouped horizontal bars and returns the height used.
    private static func drawSpeedups(
        _ svg: inout SVGText, results: [EvaluationBenchmark.Result], engines: [String], y: Double
    ) -> Double {
        let shown = engines.filter { $0 != Engine.reference }
        let barHeight = 9.0
        let groupHeight = Double(shown.count) * barHeight + 12
        let plot = (left: 220.0, right: width - 60, top: y + 25)
        let ratios = results.flatMap { result in
            shown.compactMap { divide(result.nanosecondsPerItem(Engine.reference), result.nanosecondsPerItem($0)) }
        }.filter { $0 > 0 }
        let low = min(floor(log10(ratios.min() ?? 1)), -1)
        let high = max(ceil(log10(ratios.max() ?? 10)), 1)
        func px(_ ratio: Double) -> Double {
            plot.left + (log10(ratio) - low) / (high - low) * (plot.right - plot.left)
        }
        let bottom = plot.top + Double(results.count) * groupHeight
        for decade in stride(from: low, through: high, by: 1) {
            let position = px(pow(10, decade))
            svg.line(x1: position, y1: plot.top, x2: position, y2: bottom, stroke: decade == 0 ? "#333" : "#e5e5e5")
            svg.text(ratioLabel(pow(10, decade)), x: position, y: plot.top - 6, size: 11, anchor: "middle")
        }
        for (row, result) in results.enumerated() {
            let groupTop = plot.top + Double(row) * groupHeight + 6
            svg.text(result.name, x: plot.left - 8, y: groupTop + groupHeight / 2, size: 12, anchor: "end")
            for (index, engine) in shown.enumerated() {
                let barTop = groupTop + Double(index) * barHeight
                guard
                    let ratio = divide(
                        result.nanosecondsPerItem(Engine.reference), result.nanosecondsPerItem(engine)), ratio > 0
                else {
                    let reason = result.engines.first { $0.engine == engine }?.unavailable ?? "—"
                    let label = reason == "—" ? "not measured" : reason
                    svg.text("\(engine): \(label)", x: px(1) + 3, y: barTop + barHeight - 1, size: 9, fill: "#999")
                    continue
                }
                let (start, end) = (px(1), px(ratio))
                svg.rect(
                    x: min(start, end), y: barTop, width: max(1, abs(end - start)), height: barHeight - 1,
                    fill: colors[engine] ?? "#000", stroke: "none")
                svg.text(ratioLabel(ratio), x: max(start, end) + 3, y: barTop + barHeight - 1, size: 9)
            }
        }
        return bottom - y + 10
    }

    static func countLabel(_ count: Double) -> String {
        switch count {
        case 1e6...: return "\(Int(count / 1e6))M"
        case 1e3...: return "\(Int(count / 1e3))k"
        default: return "\(Int(count))"
        }
    }

    static func nanosecondLabel(_ value: Double) -> String {
        value >= 1 ? "\(Int(value)) ns" : "\(String(format: "%g", value)) ns"
    }

    static func ratioLabel(_ ratio: Double) -> String {
        String(format: ratio >= 10 ? "%.0f×" : ratio >= 1 ? "%.1f×" : "%.2f×", ratio)
    }
}

/// SVG elements appended as text.
struct SVGText {
    private var body = ""

    mutating func text(
        _ content: String, x: Double, y: Double, size: Double, anchor: String = "start", weight: String = "normal",
        fill: String = "#000"
    ) {
        body +=
            "<text x=\"\(format(x))\" y=\"\(format(y))\" font-size=\"\(format(size))\" text-anchor=\"\(anchor)\""
            + " font-weight=\"\(weight)\" fill=\"\(fill)\">\(Self.escaped(content))</text>\n"
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String) {
        body +=
            "<line x1=\"\(format(x1))\" y1=\"\(format(y1))\" x2=\"\(format(x2))\" y2=\"\(format(y2))\""
            + " stroke=\"\(stroke)\"/>\n"
    }

    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, stroke: String) {
        body +=
            "<rect x=\"\(format(x))\" y=\"\(format(y))\" width=\"\(format(width))\" height=\"\(format(height))\""
            + " fill=\"\(fill)\" stroke=\"\(stroke)\"/>\n"
    }

    mutating func circle(cx: Double, cy: Double, radius: Double, fill: String) {
        body += "<circle cx=\"\(format(cx))\" cy=\"\(format(cy))\" r=\"\(format(radius))\" fill=\"\(fill)\"/>\n"
    }

    mutating func polyline(_ points: [(Double, Double)], stroke: String) {
        guard points.count > 1 else { return }
        let list = points.map { "\(format($0.0)),\(format($0.1))" }.joined(separator: " ")
        body += "<polyline points=\"\(list)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"2\"/>\n"
    }

    mutating func legend(_ entries: [(String, String)], x: Double, y: Double) {
        var position = x
        for (name, color) in entries {
            rect(x: position, y: y - 10, width: 12, height: 12, fill: color, stroke: "none")
            text(name, x: position + 16, y: y, size: 12)
            position += 24 + Double(name.count) * 7
        }
    }

    func document(width: Double, height: Double) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(format(width))\" height=\"\(format(height))\""
            + " viewBox=\"0 0 \(format(width)) \(format(height))\" font-family=\"Helvetica, Arial, sans-serif\">\n"
            + "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" + body + "</svg>\n"
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
