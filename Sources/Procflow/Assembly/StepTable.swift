/// Steps by id, over one array: a builder shares the run's steps with the runner rather than
/// holding a copy of each (a step is large), and adds the instances made as the run goes.
struct StepTable {
    private var list: [NestedStep]
    /// Each step's place in `list`, its place in the table: a dictionary took 63 bytes a step.
    private var positions = DenseTable<String, Void>()

    /// A table of `list`, whose ids are distinct.
    init(_ list: [NestedStep]) {
        self.list = list
        positions.reserveCapacity(list.count)
        for nested in list { positions[nested.step.id] = () }
    }

    /// The step `id`; setting one adds it, or replaces the step of that id.
    subscript(id: String) -> NestedStep? {
        get { positions.place(of: id).map { list[$0] } }
        set {
            guard let newValue else { return }
            if let position = positions.place(of: id) {
                list[position] = newValue
            } else {
                positions[id] = ()
                list.append(newValue)
            }
        }
    }

    /// Every step, the table's first, then those added, in order.
    var all: [NestedStep] { list }
}
