/// A step run once per item of a list: the list given in the file, the cartesian product of a
/// matrix, or a JSON array another step produces. Each instance gets the item as a variable
/// (`${item}`, `${item.field}`) and as an environment variable of that name; the step's output
/// is the array of its instances' outputs, in item order.
public struct ForEach: Sendable {
    /// Where the items come from.
    public enum Items: Sendable {
        /// Items given in the file.
        case values([JSONValue])
        /// Each combination of the axes' values, as an object `{axis: value, …}`, in order: the
        /// first axis varies slowest.
        case matrix([(name: String, values: [JSONValue])])
        /// The JSON array another step's output holds (at `select`, if given).
        case wire(Wire)

        /// How many items the file gives: a list's length, or the product of a matrix's axes'
        /// lengths, counted without making the combinations (`Int.max` if it overflows); `nil`
        /// for a wire's, known only at run time.
        public var count: Int? {
            switch self {
            case .values(let values): return values.count
            case .matrix(let axes):
                var product = 1
                for (_, values) in axes {
                    let (next, overflow) = product.multipliedReportingOverflow(by: values.count)
                    if overflow { return Int.max }
                    product = next
                }
                return product
            case .wire: return nil
            }
        }
    }

    /// Where the items come from.
    public var items: Items
    /// The name each instance gets its item under (`item` unless the file says otherwise).
    public var variable: String
    /// How instances are named for people (`"cc ${item}"`), when not `id[item]`.
    public var name: String? = nil
    /// The numbers of the only items to run, when a run names instances as targets.
    public var only: Set<Int>? = nil
    /// Where `forEach` is in the file.
    public var pointer: JSONPointer
    var offset: Int

    /// The items, when the file gives them: a list, or a matrix's combinations.
    public var staticItems: [JSONValue]? {
        switch items {
        case .values(let values): return values
        case .matrix(let axes):
            guard let count = items.count else { return nil }
            // Each combination made once, as a number in mixed radix whose last digit is the
            // last axis: merging axis by axis would copy every object once per axis.
            return (0..<count).map { number in
                var combination: [String: JSONValue] = [:]
                combination.reserveCapacity(axes.count)
                var rest = number
                for (name, values) in axes.reversed() {
                    combination[name] = values[rest % values.count]
                    rest /= values.count
                }
                return .object(combination)
            }
        case .wire: return nil
        }
    }

    /// The wire the items come from, if another step gives them.
    public var listWire: Wire? {
        if case .wire(let wire) = items { return wire }
        return nil
    }

    /// The longest an instance's name made of its item may be; a longer one is `id[index]`.
    static let maximumNameLength = 80

    /// What people call the instances of step `id` for `items`: `id[src/lapi.c]` (a string
    /// item as it is, a boolean as JSON, an object as `key=value` pairs in key order), or the
    /// ``name`` template filled with each item. An instance whose name would be empty, too
    /// long, hold a control character or a bracket, be another's, or read as an id (`id[7]`,
    /// as a number item would) is called by its id, `id[index]`: a name always stands for one
    /// instance.
    public func instanceNames(of id: String, items: [JSONValue]) -> [String] {
        var names = items.map { item -> String? in
            if let name {
                guard
                    case .success(let filled) = VariableSubstitution.fillItem(
                        name, variable, into: item)
                else { return nil }
                return filled
            }
            return Self.label(of: item).map { "\(id)[\($0)]" }
        }
        var seen: [String: Int] = [:]
        for case let name? in names { seen[name, default: 0] += 1 }
        for index in names.indices {
            guard let name = names[index] else { continue }
            // `x[3]` is the id of instance 3: no other instance may be called that.
            let looksLikeAnID =
                name.hasPrefix(id + "[") && name.hasSuffix("]")
                && Int(name.dropFirst(id.count + 1).dropLast()) != nil
            let unfit =
                name.isEmpty || name.count > Self.maximumNameLength || seen[name]! > 1
                || looksLikeAnID
                || name.unicodeScalars.contains { $0.properties.generalCategory == .control }
                || (self.name != nil && (name.contains("[") || name.contains("]")))
            if unfit { names[index] = nil }
        }
        return names.enumerated().map { $1 ?? Self.instanceID(of: id, at: $0) }
    }

    /// An item as it reads between the brackets of a name, if it can.
    private static func label(of item: JSONValue) -> String? {
        let text: String
        switch item {
        case .string(let string): text = string
        case .number, .bool: text = item.text
        case .object(let members):
            var pairs: [String] = []
            for key in members.keys.sorted() {
                guard let value = members[key], let label = label(of: value) else { return nil }
                pairs.append("\(key)=\(label)")
            }
            text = pairs.joined(separator: ",")
        case .array, .null: return nil
        }
        return text.isEmpty || text.contains("[") || text.contains("]") ? nil : text
    }

    /// The id of the instance for item number `index` of the step `id`: `id[index]`.
    public static func instanceID(of id: String, at index: Int) -> String {
        "\(id)[\(index)]"
    }

    /// `id` with its instances' item numbers left out (`each[].cc` for `each[3].cc`): the same
    /// for every instance of one step of a `forEach`; `nil` when `id` is no instance's.
    public static func templateID(ofInstance id: String) -> String? {
        guard id.contains("[") else { return nil }
        var template = ""
        var inIndex = false
        for character in id {
            if character == "]" { inIndex = false }
            if !inIndex { template.append(character) }
            if character == "[" { inIndex = true }
        }
        return template
    }

    /// The id of the step whose instance `id` is, or is inside (`each` for `each[2]` and
    /// `each[2].inner`); `id` itself when it is no instance's.
    public static func stepID(ofInstance id: String) -> String {
        id.firstIndex(of: "[").map { String(id[..<$0]) } ?? id
    }
}
