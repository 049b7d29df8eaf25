import Foundation

/// One record of a CSV file with the line it starts on, for messages that point at the file.
public struct CSVRecord: Sendable, Equatable {
    public var line: Int
    public var fields: [String]
}

/// A small RFC 4180 reader: quoted fields, doubled quotes, newlines inside quotes, CRLF,
/// a leading byte-order mark, and a chosen delimiter (Strong writes `,` or `;`).
public enum CSV {
    /// The records of `text`. The reader walks UTF-8 bytes, not characters: every byte it looks
    /// for (the delimiter, the quote, CR and LF) is ASCII, which UTF-8 never uses inside a longer
    /// sequence, so a field is split exactly where the text has the byte; walking characters cost
    /// grapheme breaking on every byte of a 100 000-row file (most of its parse time). A
    /// delimiter that is not ASCII is read as a comma; Strong writes only `,` or `;`.
    public static func records(_ text: String, delimiter: Character) -> [CSVRecord] {
        let separator = delimiter.asciiValue ?? UInt8(ascii: ",")
        let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        var text = text
        return text.withUTF8 { bytes in
            var records: [CSVRecord] = []
            var fields: [String] = []
            var field: [UInt8] = []
            field.reserveCapacity(64)
            var inQuotes = false
            var line = 1
            var recordLine = 1
            var afterQuote = false
            var index = 0
            // Leading byte-order marks (EF BB BF) are not part of the first field.
            while index + 2 < bytes.count, bytes[index] == 0xEF, bytes[index + 1] == 0xBB, bytes[index + 2] == 0xBF {
                index += 3
            }

            func endField() {
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
            }
            func endRecord() {
                endField()
                if !(fields.count == 1 && fields[0].trimmingCharacters(in: .whitespaces).isEmpty) {
                    records.append(CSVRecord(line: recordLine, fields: fields))
                }
                fields = []
            }

            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if inQuotes {
                    if byte == quote {
                        if index < bytes.count, bytes[index] == quote {
                            field.append(quote)
                            index += 1
                        } else {
                            inQuotes = false
                            afterQuote = index < bytes.count
                        }
                    } else if byte == cr, index < bytes.count, bytes[index] == lf {
                        // CR LF inside quotes is one line break, kept as a line feed.
                        field.append(lf)
                        index += 1
                        line += 1
                    } else {
                        if byte == lf { line += 1 }
                        field.append(byte)
                    }
                    continue
                }
                switch byte {
                case quote where field.isEmpty && !afterQuote:
                    inQuotes = true
                case separator:
                    endField()
                    afterQuote = false
                case lf, cr:
                    if byte == cr, index < bytes.count, bytes[index] == lf { index += 1 }
                    endRecord()
                    line += 1
                    recordLine = line
                    afterQuote = false
                default:
                    field.append(byte)
                }
            }
            if !field.isEmpty || !fields.isEmpty { endRecord() }
            return records
        }
    }

    /// Quotes a field for writing when it needs it.
    public static func escape(_ field: String) -> String {
        if field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return field
    }
}
