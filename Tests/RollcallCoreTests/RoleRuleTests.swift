import RollcallCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct RoleRuleTests {
    static let claims: [RoleClaim] = [
        .absent, .teachesACourse, .directory(.student), .directory(.teacher), .directory(.admin),
        .directory(.healthOfficer),
    ]
    static let sources: [RoleSource] = [.registration, .school, .admin]

    @Test func an_admins_hand_set_role_always_wins() {
        for role in Role.allCases {
            for claim in Self.claims {
                #expect(RoleRule.next(current: role, source: .admin, claim: claim) == nil, "\(role) \(claim)")
            }
        }
    }

    @Test func an_admin_account_is_never_changed_from_outside() {
        for source in Self.sources {
            for claim in Self.claims {
                #expect(RoleRule.next(current: .admin, source: source, claim: claim) == nil)
            }
        }
    }

    @Test func an_absent_claim_changes_nothing() {
        for role in Role.allCases {
            for source in Self.sources {
                #expect(RoleRule.next(current: role, source: source, claim: .absent) == nil)
            }
        }
    }

    @Test func the_schools_directory_moves_a_role_up_and_down() {
        for source in [RoleSource.registration, .school] {
            #expect(RoleRule.next(current: .student, source: source, claim: .directory(.teacher)) == .teacher)
            #expect(RoleRule.next(current: .teacher, source: source, claim: .directory(.student)) == .student)
            #expect(RoleRule.next(current: .teacher, source: source, claim: .directory(.teacher)) == nil)
            // The directory never makes an admin or a health officer.
            #expect(RoleRule.next(current: .student, source: source, claim: .directory(.admin)) == nil)
            #expect(RoleRule.next(current: .student, source: source, claim: .directory(.healthOfficer)) == nil)
        }
    }

    @Test func teaching_one_course_raises_a_student_and_lowers_nobody() {
        #expect(RoleRule.next(current: .student, source: .school, claim: .teachesACourse) == .teacher)
        #expect(RoleRule.next(current: .student, source: .registration, claim: .teachesACourse) == .teacher)
        #expect(RoleRule.next(current: .teacher, source: .school, claim: .teachesACourse) == nil)
    }

    @Test func a_new_account_is_a_student_unless_told_otherwise() {
        #expect(RoleRule.initial(.absent) == .student)
        #expect(RoleRule.initial(.directory(.teacher)) == .teacher)
        #expect(RoleRule.initial(.directory(.admin)) == .student)
        #expect(RoleRule.initial(.teachesACourse) == .teacher)
    }
}
