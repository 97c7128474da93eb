/// Steps by id, over one array: a builder shares the run's steps with the runner rather than
/// holding a copy of each (a step is large), and adds the instances made as the run goes.
struct StepTable {
    private var list: [NestedStep]
    private var positions: [String: Int]

    /// A table of `list`, whose ids are distinct.
    init(_ list: [NestedStep]) {
        self.list = list
        var positions: [String: Int] = [:]
        positions.reserveCapacity(list.count)
        for (position, nested) in list.enumerated() { positions[nested.step.id] = position }
        self.positions = positions
    }

    /// The step `id`; setting one adds it, or replaces the step of that id.
    subscript(id: String) -> NestedStep? {
        get { positions[id].map { list[$0] } }
        set {
            guard let newValue else { return }
            if let position = positions[id] {
                list[position] = newValue
            } else {
                positions[id] = list.count
                list.append(newValue)
            }
        }
    }

    /// Every step, the table's first, then those added, in order.
    var all: [NestedStep] { list }
}
