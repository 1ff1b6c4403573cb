import AuthVocabulary
import Contracts
import Foundation
import TenantStore

/// The statements of ``EnrollmentRepository``, each a type: its values, its text in a schema, its row.
extension EnrollmentRepository {
    /// The account's enrollments as the checks before a change read them.
    struct ReadHeld: Statement {
        typealias Row = HeldFactor
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT enrollment_id, phone_number, kind FROM \(sql: schema.qualified(EnrollmentRepository.table)) WHERE local_id = \(localId)"
        }
    }

    /// An enrollment as the checks before a change read it.
    struct HeldFactor: StatementRow {
        let enrollmentId: String
        let kind: String
        let phoneNumber: String?

        init(_ columns: RowColumns) throws {
            enrollmentId = try columns("enrollment_id")
            kind = try columns("kind")
            phoneNumber = try columns("phone_number")
        }
    }

    /// A new enrollment, enrolled now.
    struct InsertEnrollment: Statement {
        let localId: String
        let enrollment: Enrollment

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            INSERT INTO \(sql: schema.qualified(EnrollmentRepository.table)) (enrollment_id, local_id, kind, display_name, phone_number)
            VALUES (\(enrollment.mfaEnrollmentId), \(localId), \(enrollment.kind.rawValue), \(enrollment.displayName),
                    \(enrollment.phoneNumber))
            """
        }
    }

    /// Every enrollment of the account.
    struct DeleteEnrollmentsOf: Statement {
        static var isCached: Bool { false }
        let localId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "DELETE FROM \(sql: schema.qualified(EnrollmentRepository.table)) WHERE local_id = \(localId)"
        }
    }

    /// An enrollment as given (an import, a replacement), enrolled at `enrolledAt`.
    struct InsertGivenEnrollment: Statement {
        static var isCached: Bool { false }
        let localId: String
        let enrollment: Enrollment
        let enrolledAt: Date

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try """
            INSERT INTO \(sql: schema.qualified(EnrollmentRepository.table)) (enrollment_id, local_id, kind, display_name, phone_number, enrolled_at)
            VALUES (\(enrollment.mfaEnrollmentId), \(localId), \(enrollment.kind.rawValue), \(enrollment.displayName),
                    \(enrollment.phoneNumber), \(enrolledAt))
            """
        }
    }

    /// The enrollment `enrollmentId`, and with it the recovery codes when it was the account's last
    /// factor; a row per enrollment removed, as it was.
    struct RemoveWithRecovery: Statement {
        typealias Row = RemovedFactor
        static var isCached: Bool { false }
        let localId: String
        let enrollmentId: String

        func query(in schema: TenantSchema) -> CachedQuery {
            let enrollments = schema.qualified(EnrollmentRepository.table)
            let recovery = FactorKind.recoveryCode.rawValue
            return """
                DELETE FROM \(sql: enrollments)
                WHERE local_id = \(localId)
                  AND (enrollment_id = \(enrollmentId)
                       OR (kind = \(recovery) AND EXISTS (SELECT 1 FROM \(sql: enrollments)
                                                         WHERE local_id = \(localId) AND enrollment_id = \(enrollmentId))
                           AND NOT EXISTS (SELECT 1 FROM \(sql: enrollments)
                                           WHERE local_id = \(localId) AND kind <> \(recovery) AND enrollment_id <> \(enrollmentId))))
                RETURNING enrollment_id, kind, display_name, phone_number,
                          to_char(enrolled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS enrolled_at
                """
        }
    }

    /// A removed enrollment: its id and kind as stored (what the audit records), and the enrollment,
    /// `nil` for a kind this version does not know.
    struct RemovedFactor: StatementRow {
        let enrollmentId: String
        let kind: String
        let enrollment: Enrollment?

        init(_ columns: RowColumns) throws {
            enrollmentId = try columns("enrollment_id")
            kind = try columns("kind")
            guard let known = FactorKind(rawValue: kind) else {
                enrollment = nil
                return
            }
            enrollment = Enrollment(
                mfaEnrollmentId: enrollmentId, kind: known, displayName: try columns("display_name"),
                phoneNumber: try columns("phone_number"), enrolledAt: try columns("enrolled_at"))
        }
    }

    /// Which of the pairs (`localIds[i]`, `enrollmentIds[i]`) have an enrollment, of any kind.
    struct ReadRecorded: Statement {
        typealias Row = EnrollmentKey
        static var isCached: Bool { false }
        let localIds: [String]
        let enrollmentIds: [String]

        func query(in schema: TenantSchema) -> CachedQuery {
            """
            SELECT e.local_id, e.enrollment_id FROM \(sql: schema.qualified(EnrollmentRepository.table)) e
            JOIN unnest(\(localIds)::text[], \(enrollmentIds)::text[]) AS s (local_id, enrollment_id)
              ON e.local_id = s.local_id AND e.enrollment_id = s.enrollment_id
            """
        }
    }

    /// An enrollment's account and id.
    struct EnrollmentKey: StatementRow {
        let factor: StoredTOTPFactor

        init(_ columns: RowColumns) throws {
            factor = StoredTOTPFactor(localId: try columns("local_id"), mfaEnrollmentId: try columns("enrollment_id"))
        }
    }
}
