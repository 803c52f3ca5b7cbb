/// ISO 8601 dates as item JSON gives them (`2026-12-02`, `2026-12-02T09:30:00Z`,
/// `2026-12-02T09:30:00.5+01:00`), as seconds since 2001-01-01 00:00 UTC, the reference date of
/// `NSDate` and of the language's date values.
enum ISO8601Date {
    /// Seconds from 1970-01-01 to 2001-01-01.
    static let referenceOffset: Double = 978_307_200

    /// The seconds since 2001 that `text` names, or `nil` when it is not an ISO 8601 date (a date
    /// alone is midnight UTC; a time without a zone is UTC).
    static func seconds(_ text: String) -> Double? {
        var scanner = Substring(text)[...]
        guard let year = number(&scanner, digits: 4), literal(&scanner, "-"), let month = number(&scanner, digits: 2),
            literal(&scanner, "-"), let day = number(&scanner, digits: 2), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        if scanner.isEmpty { return seconds - referenceOffset }
        guard literal(&scanner, "T") || literal(&scanner, " "), let hour = number(&scanner, digits: 2),
            literal(&scanner, ":"), let minute = number(&scanner, digits: 2), hour < 24, minute < 60
        else { return nil }
        seconds += Double(hour * 3600 + minute * 60)
        if literal(&scanner, ":") {
            guard let second = number(&scanner, digits: 2), second < 61 else { return nil }
            seconds += Double(second)
            if literal(&scanner, ".") || literal(&scanner, ",") {
                let fraction = scanner.prefix { $0.isASCII && $0.isNumber }
                guard !fraction.isEmpty, fraction.count <= 9, let value = Double("0." + fraction) else { return nil }
                seconds += value
                scanner = scanner.dropFirst(fraction.count)
            }
        }
        if literal(&scanner, "Z") || scanner.isEmpty { return scanner.isEmpty ? seconds - referenceOffset : nil }
        guard let sign = scanner.first, sign == "+" || sign == "-" else { return nil }
        scanner = scanner.dropFirst()
        guard let zoneHours = number(&scanner, digits: 2), zoneHours < 24 else { return nil }
        _ = literal(&scanner, ":")
        guard let zoneMinutes = number(&scanner, digits: 2), zoneMinutes < 60, scanner.isEmpty else { return nil }
        let offset = Double(zoneHours * 3600 + zoneMinutes * 60)
        return seconds - (sign == "+" ? offset : -offset) - referenceOffset
    }

    private static func number(_ scanner: inout Substring, digits: Int) -> Int? {
        let prefix = scanner.prefix(digits)
        guard prefix.count == digits, prefix.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(prefix) else {
            return nil
        }
        scanner = scanner.dropFirst(digits)
        return value
    }

    private static func literal(_ scanner: inout Substring, _ character: Character) -> Bool {
        guard scanner.first == character else { return false }
        scanner = scanner.dropFirst()
        return true
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
