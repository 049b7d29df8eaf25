import Foundation

/// One record of a CSV file with the line it starts on, for messages that point at the file.
public struct CSVRecord: Sendable, Equatable {
    public var line: Int
    public var fields: [String]
}

/// A small RFC 4180 reader: quoted fields, doubled quotes, newlines inside quotes, CRLF,
/// a leading byte-order mark, and a chosen delimiter (Strong writes `,` or `;`).
public enum CSV {
    public static func records(_ text: String, delimiter: Character) -> [CSVRecord] {
        var records: [CSVRecord] = []
        var fields: [String] = []
        var field = ""
        var inQuotes = false
        var line = 1
        var recordLine = 1
        var afterQuote = false
        var iterator = text.drop { $0 == "\u{FEFF}" }.makeIterator()
        var pending: Character? = nil

        func endRecord() {
            fields.append(field)
            field = ""
            if !(fields.count == 1 && fields[0].trimmingCharacters(in: .whitespaces).isEmpty) {
                records.append(CSVRecord(line: recordLine, fields: fields))
            }
            fields = []
        }

        while let character = pending ?? iterator.next() {
            pending = nil
            if inQuotes {
                if character == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" {
                            field.append("\"")
                        } else {
                            inQuotes = false
                            afterQuote = true
                            pending = next
                        }
                    } else {
                        inQuotes = false
                    }
                } else {
                    if character == "\n" || character == "\r\n" { line += 1 }
                    field.append(character == "\r\n" ? "\n" : character)
                }
                continue
            }
            switch character {
            case "\"" where field.isEmpty && !afterQuote:
                inQuotes = true
            case delimiter:
                fields.append(field)
                field = ""
                afterQuote = false
            case "\n", "\r\n", "\r":
                endRecord()
                line += 1
                recordLine = line
                afterQuote = false
            default:
                field.append(character)
            }
        }
        if !field.isEmpty || !fields.isEmpty { endRecord() }
        return records
    }

    /// Quotes a field for writing when it needs it.
    public static func escape(_ field: String) -> String {
        if field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return field
    }
}
