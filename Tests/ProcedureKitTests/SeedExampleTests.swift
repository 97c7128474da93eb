import Dispatch
import Foundation
import Testing

@testable import ProcedureKit

// Every code example of the three seed documents, made to compile and run. Typos fixed:
// `ouptut` → `output`; `stage3` injecting from itself → from `stage2`; the undefined `login`
// → `task`; `MutualExclusive` → `MutuallyExclusive`; `willFinishWithErrors errors: [ErrorType]`
// → `willFinishWithError error: Error?`; `private(set) var output` → `var output` (the protocol
// needs a setter); the block observer's three arguments → two.

// MARK: - "Result Injection"

/// Stands in for the network: delivers a fixed payload later, on another thread.
func fetchDataAsynchronouslyFromTheNetwork(completion: @escaping @Sendable (Data) -> Void) {
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) {
        completion(Data("payload".utf8))
    }
}

/// Stands in for real processing: upper-cases the text, later, on another thread.
func process(data: Data, completion: @escaping @Sendable (Data) -> Void) {
    DispatchQueue.global().async {
        completion(Data(String(decoding: data, as: UTF8.self).uppercased().utf8))
    }
}

final class DataFetch: Procedure, OutputProcedure, @unchecked Sendable {

    var output: Pending<ProcedureResult<Data>> = .pending

    override func execute() {
        fetchDataAsynchronouslyFromTheNetwork { data in
            self.output = .ready(.success(data))
            self.finish()
        }
    }
}

final class DataProcessing: Procedure, InputProcedure, OutputProcedure, @unchecked Sendable {

    var input: Pending<Data> = .pending
    var output: Pending<ProcedureResult<Data>> = .pending

    override func execute() {
        guard let data = input.value else { return finish() }
        process(data: data) { processed in
            self.output = .ready(.success(processed))
            self.finish()
        }
    }
}

// MARK: - "Advanced Result Injection"

struct Foo: Sendable { var text = "foo" }
struct Baz: Sendable { var text: String }
struct Bat: Sendable { var text: String }
struct Bar: Sendable { var text: String }

class TestGroupProcedure: GroupProcedure, @unchecked Sendable {}

final class MyGroup: TestGroupProcedure, InputProcedure, OutputProcedure, @unchecked Sendable {

    var input: Pending<Foo> = .pending
    var output: Pending<ProcedureResult<Bar>> = .pending

    init() {

        let stage1 = TransformProcedure<Foo, Baz> { Baz(text: $0.text + ">baz") }

        let stage2 = TransformProcedure<Baz, Bat> { Bat(text: $0.text + ">bat") }
            .injectResult(from: stage1)

        let stage3 = TransformProcedure<Bat, Bar> { Bar(text: $0.text + ">bar") }
            .injectResult(from: stage2)

        super.init(operations: [stage1, stage2, stage3])

        // Bind the group's input property to the first procedure
        bind(to: stage1)

        // Bind the group's output property from the last procedure
        bind(from: stage3)
    }
}

// MARK: - "Groups"

/// Counts the network activity of the procedures it observes.
struct NetworkObserver: ProcedureObserver {
    let activity: Recorder<String>

    func will(execute procedure: Procedure) { activity.append("network on") }
    func did(finish procedure: Procedure, with error: (any Error)?) {
        activity.append("network off")
    }
}

struct Credentials: Sendable { var user = "ada" }

final class LoginProcedure: GroupProcedure, @unchecked Sendable {

    // Nested class definitions to help componentize Login
    final class PersistLoginInfo: Operation, @unchecked Sendable {
        let credentials: Credentials
        let persisted: Recorder<String>
        init(_ credentials: Credentials, persisted: Recorder<String>) {
            self.credentials = credentials
            self.persisted = persisted
        }
        override func main() { persisted.append(credentials.user) }
    }

    final class LoginSessionTask: Procedure, @unchecked Sendable {
        let credentials: Credentials
        init(_ credentials: Credentials) {
            self.credentials = credentials
            super.init()
        }
    }

    init(credentials: Credentials, activity: Recorder<String>, persisted: Recorder<String>) {

        // Create the child operations
        let persist = PersistLoginInfo(credentials, persisted: persisted)
        let login = LoginSessionTask(credentials)

        // Do any configuration or setup
        persist.addDependency(login)

        // Call the super initializer with the operations
        super.init(operations: [persist, login])

        // Configure any properties, such as name.
        name = "Login"

        // Add observers, conditions etc to the group
        add(observer: NetworkObserver(activity: activity))
        add(condition: MutuallyExclusive<LoginProcedure>())
    }
}

/// A network procedure injected into a group; it runs until cancelled.
class MyNetworkingProcedure: Procedure, @unchecked Sendable {
    override func procedureDidCancel(with error: (any Error)?) {
        finish()
    }

    override func execute() {}
}

final class InjectedLoginProcedure: GroupProcedure, @unchecked Sendable {

    final class PersistLoginInfo: Procedure, @unchecked Sendable {
        init(_ credentials: Credentials) { super.init() }
    }

    let task: MyNetworkingProcedure

    init(credentials: Credentials, task: MyNetworkingProcedure, activity: Recorder<String>) {
        self.task = task

        // Create the child operations
        let persist = PersistLoginInfo(credentials)

        // Do any configuration or setup
        persist.add(dependency: task)

        // Call the super initializer with the operations
        super.init(operations: [persist, task])

        // Configure any properties, such as name.
        name = "Login"

        // Add observers, conditions etc to the group
        add(observer: NetworkObserver(activity: activity))
        add(condition: MutuallyExclusive<InjectedLoginProcedure>())

        // Add cancellation observer to injected procedures
        task.addDidCancelBlockObserver { [weak self] (task, errors) in
            self?.cancel()
        }
    }
}

final class FooProcedure: Procedure, @unchecked Sendable {
    let doBaz: Bool
    init(doBaz: Bool) {
        self.doBaz = doBaz
        super.init()
    }
}

final class BazProcedure: TestProcedureBase, @unchecked Sendable {}
final class BarProcedure: TestProcedureBase, @unchecked Sendable {}

class TestProcedureBase: Procedure, @unchecked Sendable {}

final class FooBarBazProcedure: GroupProcedure, @unchecked Sendable {
    init(doBaz: Bool) {
        super.init(operations: [FooProcedure(doBaz: doBaz)])
    }

    override func child(_ child: Procedure, willFinishWithError error: Error?) {
        super.child(child, willFinishWithError: error)
        guard !isCancelled else { return }
        if error == nil, let foo = child as? FooProcedure {
            if foo.doBaz {
                add(child: BazProcedure())
            } else {
                add(child: BarProcedure())
            }
        }
    }
}

@Suite("Seed examples")
struct SeedExampleTests {

    @Test func resultInjectionChainsFetchIntoProcessing() {
        let queue = ProcedureQueue()
        let fetch = DataFetch()
        let processing = DataProcessing()
        processing.injectResult(from: fetch)
        #expect(processing.dependencies == [fetch])
        queue.add(operations: fetch, processing)
        waitUntilIdle(queue)
        #expect(processing.input.value == Data("payload".utf8))
        #expect(processing.output.value?.value == Data("PAYLOAD".utf8))
    }

    @Test func bindingExposesTheChainAsTheGroupsInputAndOutput() {
        let queue = ProcedureQueue()
        let foo = ResultProcedure { Foo() }  // This is a procedure which creates a Foo output
        let myGroup = MyGroup()  // This expects to be injected with a Foo value
        myGroup.injectResult(from: foo)  // This does the injection, and triggers the binding.
        let seen = Recorder<String>()
        myGroup.addDidFinishBlockObserver { (group, _) in
            // group output will now be set
            seen.append(group.output.value?.value?.text ?? "unset")
        }
        queue.add(operations: foo, myGroup)
        waitUntilIdle(queue)
        #expect(seen.all == ["foo>baz>bat>bar"])
    }

    @Test func settingTheInputByHandDoesNotTriggerTheBinding() {
        let queue = ProcedureQueue()
        let myGroup = MyGroup()
        myGroup.input = .ready(Foo())
        queue.add(operation: myGroup)
        waitUntilIdle(queue)
        #expect(myGroup.output.value?.value == nil)
        #expect(myGroup.failed)
        let error = myGroup.error as? ProcedureKitError
        #expect(error?.context == .requirementNotSatisfied)
    }

    @Test func groupsCanBeUsedDirectlyAndGrowWhileRunning() {
        let queue = ProcedureQueue()
        let ran = Recorder<String>()
        let operations = (1...6).map { index in BlockOperation { ran.append("op\(index)") } }
        let (opOne, opTwo, opThree, opFour, opFive, opSix) = (
            operations[0], operations[1], operations[2], operations[3], operations[4],
            operations[5]
        )
        let gate = HeldProcedure()
        let group = GroupProcedure(operations: opOne, opTwo, opThree, gate)
        let children = Recorder<Int>()
        group.addDidFinishBlockObserver { (group, errors) in
            // The group has finished, meaning all child operations
            // have finished. From here you can access them.
            children.append(group.children.count)
        }
        queue.add(operation: group)
        gate.started.wait()
        group.add(child: opFour)
        group.add(children: [opFive, opSix])
        gate.release()
        waitUntilIdle(queue)
        #expect(Set(ran.all) == ["op1", "op2", "op3", "op4", "op5", "op6"])
        #expect(children.all == [7])
    }

    @Test func aCustomGroupHidesItsChildren() {
        let queue = ProcedureQueue()
        let activity = Recorder<String>()
        let persisted = Recorder<String>()
        let login = LoginProcedure(
            credentials: Credentials(), activity: activity, persisted: persisted)
        queue.add(operation: login)
        waitUntilIdle(queue)
        #expect(login.name == "Login")
        #expect(login.error == nil)
        #expect(persisted.all == ["ada"])
        #expect(activity.all == ["network on", "network off"])
    }

    @Test(arguments: [true, false])
    func aGroupBranchesOnItsChildsResult(doBaz: Bool) {
        let queue = ProcedureQueue()
        let group = FooBarBazProcedure(doBaz: doBaz)
        queue.add(operation: group)
        waitUntilIdle(queue)
        let kinds = group.children.map { String(describing: type(of: $0)) }
        #expect(kinds == ["FooProcedure", doBaz ? "BazProcedure" : "BarProcedure"])
        #expect(group.children.allSatisfy { $0.isFinished })
    }

    @Test func cancellingAnInjectedTaskCancelsTheGroup() {
        let queue = ProcedureQueue()
        let task = MyNetworkingProcedure()
        let login = InjectedLoginProcedure(
            credentials: Credentials(), task: task, activity: Recorder())
        queue.add(operation: login)
        #expect(eventually { task.isExecuting })
        task.cancel()
        waitForFinish(login)
        #expect(login.isCancelled)
        #expect(login.children.allSatisfy { $0.isFinished })
    }
}
