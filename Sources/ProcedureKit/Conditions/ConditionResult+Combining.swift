extension Array where Element == ConditionResult {
    /// The results combined as the original combines a procedure's conditions and an
    /// ``AndCondition``'s: the first failure, in order; otherwise satisfied if any result is
    /// `true`. A `false` is "ignored": it counts only when every result is `false` (or there is
    /// none), and then the whole is `false`.
    var allSatisfied: ConditionResult {
        if let failure = first(where: { $0.error != nil }) { return failure }
        return .success(contains { $0.value == true })
    }

    /// The results combined as an ``OrCondition`` combines them: `true` if any is; otherwise
    /// the failure if one failed, and all the failures as one
    /// ``ProcedureKitError/FailedConditions``, in order, if several did, as the original does;
    /// otherwise `false`.
    var anySatisfied: ConditionResult {
        if contains(where: { $0.value == true }) { return .success(true) }
        let errors = compactMap(\.error)
        switch errors.count {
        case 0: return .success(false)
        case 1: return .failure(errors[0])
        default: return .failure(ProcedureKitError.FailedConditions(errors: errors))
        }
    }
}
