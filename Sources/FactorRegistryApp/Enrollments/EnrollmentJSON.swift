import Contracts
import Foundation

/// An account's enrollments as the account query returns them (a JSON array, or NULL for none).
enum EnrollmentJSON {
    static func decode(_ text: String?) -> [Enrollment]? {
        guard let text, let enrollments = try? JSONDecoder().decode([Enrollment].self, from: Data(text.utf8)),
            !enrollments.isEmpty
        else { return nil }
        return enrollments
    }
}
