import Foundation
import RollcallCore
import Testing

@Suite("Account rules", .timeLimit(.minutes(5)))
struct AccountRulesTests {
    @Test(arguments: [
        ("Ada@Example.EDU", "ada@example.edu"), ("  x.y+tag@mail.school.org ", "x.y+tag@mail.school.org"),
    ])
    func emails_are_trimmed_and_lower_cased(raw: String, expected: String) throws {
        #expect(try AccountRules.email(raw) == expected)
    }

    @Test(arguments: ["", "plain", "@school.edu", "a@", "a@b", "a@.edu", "a@edu.", "a b@c.de", "a@b@c.de", "<a@b.cd>"])
    func malformed_emails_are_refused(raw: String) {
        #expect(throws: RuleViolation.self) { try AccountRules.email(raw) }
    }

    @Test func names_are_trimmed_and_bounded() throws {
        #expect(try AccountRules.name("  Grace Hopper ") == "Grace Hopper")
        #expect(throws: RuleViolation.self) { try AccountRules.name("   ") }
        #expect(throws: RuleViolation.self) { try AccountRules.name("two\nlines") }
        #expect(throws: RuleViolation.self) { try AccountRules.name(String(repeating: "n", count: 101)) }
        #expect(try AccountRules.name(String(repeating: "n", count: 100)).count == 100)
    }

    @Test func passwords_need_eight_to_128_characters() throws {
        #expect(throws: RuleViolation.self) { try AccountRules.password("1234567") }
        #expect(try AccountRules.password("12345678") == "12345678")
        #expect(throws: RuleViolation.self) { try AccountRules.password(String(repeating: "p", count: 129)) }
        do {
            _ = try AccountRules.password("x", field: "newPassword")
        } catch {
            #expect(error.field == "newPassword")
        }
    }

    @Test func student_numbers_and_phones() throws {
        #expect(try AccountRules.studentNumber(" s-2024-01 ") == "S-2024-01")
        #expect(throws: RuleViolation.self) { try AccountRules.studentNumber("has space") }
        #expect(throws: RuleViolation.self) { try AccountRules.studentNumber("ünï") }
        #expect(try AccountRules.phone("+1 (555) 010-9999") == "+15550109999")
        #expect(throws: RuleViolation.self) { try AccountRules.phone("555 0109") }
        #expect(throws: RuleViolation.self) { try AccountRules.phone("+12") }
        #expect(throws: RuleViolation.self) { try AccountRules.phone("+1234567890123456") }
    }

    @Test func only_students_and_teachers_register_themselves() {
        #expect(Role.selfRegistrable == [.student, .teacher])
    }
}

@Suite("Join codes", .timeLimit(.minutes(5)))
struct JoinCodeTests {
    @Test func codes_avoid_characters_that_look_alike() {
        for character in "0O1IL5S2Z8BUV" {
            #expect(!JoinCode.alphabet.contains(character))
        }
    }

    @Test func random_codes_are_valid_and_vary() {
        var generator = SystemRandomNumberGenerator()
        let codes = (0..<200).map { _ in JoinCode.random(using: &generator) }
        #expect(codes.allSatisfy { JoinCode(typed: $0.description) == $0 })
        #expect(Set(codes).count > 190)
    }

    @Test func typing_forgives_case_spaces_and_dashes_but_nothing_else() {
        #expect(JoinCode(typed: "k7m-x3q a")?.description == "K7MX3QA")
        #expect(JoinCode(typed: JoinCode.example)?.description == JoinCode.example)
        #expect(JoinCode(typed: "K7MX3Q") == nil)
        #expect(JoinCode(typed: "K7MX3QAA") == nil)
        #expect(JoinCode(typed: "K7MX3Q0") == nil)
        #expect(JoinCode(typed: "") == nil)
    }
}

@Suite("Sign-in throttle", .timeLimit(.minutes(5)))
struct SignInThrottleTests {
    let throttle = SignInThrottle(freeFailures: 3, lockoutAfter: 6, lockout: 900, memory: 3600)

    @Test func the_first_failures_are_free() {
        #expect(throttle.decide(failures: 0, secondsSinceLastFailure: nil) == .allow)
        #expect(throttle.decide(failures: 2, secondsSinceLastFailure: 1) == .allow)
    }

    @Test func then_each_failure_costs_more_time() {
        #expect(throttle.decide(failures: 3, secondsSinceLastFailure: 1) == .delay(0.5))
        #expect(throttle.decide(failures: 5, secondsSinceLastFailure: 1) == .delay(1.5))
    }

    @Test func then_sign_in_is_refused_until_the_lockout_passes() {
        #expect(throttle.decide(failures: 6, secondsSinceLastFailure: 0) == .refuse(retryAfter: 900))
        #expect(throttle.decide(failures: 6, secondsSinceLastFailure: 899.5) == .refuse(retryAfter: 1))
        #expect(throttle.decide(failures: 6, secondsSinceLastFailure: 900) == .allow)
    }

    @Test func old_failures_are_forgotten() {
        #expect(throttle.decide(failures: 5, secondsSinceLastFailure: 3600) == .allow)
        #expect(throttle.failuresAfterFailure(failures: 5, secondsSinceLastFailure: 3600) == 1)
        #expect(throttle.failuresAfterFailure(failures: 6, secondsSinceLastFailure: 901) == 1)
        #expect(throttle.failuresAfterFailure(failures: 2, secondsSinceLastFailure: 10) == 3)
        #expect(throttle.failuresAfterFailure(failures: 0, secondsSinceLastFailure: nil) == 1)
    }
}

@Suite("Session settings", .timeLimit(.minutes(5)))
struct SessionSettingsTests {
    @Test func the_typed_code_has_its_own_period_of_ten_to_sixty_seconds() throws {
        #expect(try SessionSettingsDraft().validated().typedCodePeriod == 30)
        #expect(try SessionSettingsDraft(typedPeriod: 45).validated().typedCodePeriod == 45)
        for period in [9, 61, 0, -30] {
            #expect(
                throws: RuleViolation(
                    field: "typedPeriod", message: "The typed code's period must be 10 to 60 seconds.")
            ) {
                try SessionSettingsDraft(typedPeriod: period).validated()
            }
        }
        // Settings saved before the typed period existed read with the standard one.
        var old =
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(SessionSettings.standard)) as! [String: Any]
        old["typedPeriod"] = nil
        let decoded = try JSONDecoder().decode(SessionSettings.self, from: JSONSerialization.data(withJSONObject: old))
        #expect(decoded.typedPeriod == nil && decoded.typedCodePeriod == 30)
    }

    @Test func an_empty_draft_gives_the_standard_settings() throws {
        #expect(try SessionSettingsDraft().validated() == .standard)
    }

    @Test func a_classroom_size_gives_the_radius() throws {
        let settings = try SessionSettingsDraft(latitude: 48.1, longitude: 11.5, classroomSize: .large).validated()
        #expect(settings.geofence?.radius == ClassroomSize.large.radius)
        #expect(settings.classroomSize == .large)
        let explicit = try SessionSettingsDraft(latitude: 48.1, longitude: 11.5, radius: 42, classroomSize: .large)
            .validated()
        #expect(explicit.geofence?.radius == 42)
    }

    @Test func boundaries_are_inclusive() throws {
        #expect(try SessionSettingsDraft(period: 2).validated().period == 2)
        #expect(try SessionSettingsDraft(period: 60).validated().period == 60)
        #expect(try SessionSettingsDraft(grace: 0).validated().grace == 0)
        #expect(try SessionSettingsDraft(openMinutes: 10, lateAfterMinutes: 10).validated().lateAfterMinutes == 10)
        #expect(try SessionSettingsDraft(openMinutes: 10).validated().lateAfterMinutes == nil)
        #expect(try SessionSettingsDraft(latitude: 0, longitude: 0, radius: 5).validated().geofence?.radius == 5)
    }

    @Test(arguments: [
        (SessionSettingsDraft(period: 1), "period"), (SessionSettingsDraft(period: 61), "period"),
        (SessionSettingsDraft(grace: -1), "grace"), (SessionSettingsDraft(openMinutes: 721), "openMinutes"),
        (SessionSettingsDraft(openMinutes: 5, lateAfterMinutes: 6), "lateAfterMinutes"),
        (SessionSettingsDraft(lateAfterMinutes: -1), "lateAfterMinutes"),
        (SessionSettingsDraft(mode: .spot), "latitude"), (SessionSettingsDraft(longitude: 3), "latitude"),
        (SessionSettingsDraft(latitude: .nan, longitude: 0, radius: 30), "latitude"),
        (SessionSettingsDraft(latitude: 0, longitude: .infinity, radius: 30), "longitude"),
        (SessionSettingsDraft(latitude: 0, longitude: 0, radius: 5001), "radius"),
        (SessionSettingsDraft(classroomSize: .small), "latitude"),
        (SessionSettingsDraft(allowedNetworks: ["300.1.1.1/8"]), "allowedNetworks"),
    ])
    func rule_breaking_drafts_name_the_field(draft: SessionSettingsDraft, field: String) {
        #expect {
            try draft.validated()
        } throws: { error in
            (error as? RuleViolation)?.field == field
        }
    }

    @Test func typing_is_on_for_typed_sessions() throws {
        #expect(try SessionSettingsDraft(mode: .typed).validated().allowTyping)
        #expect(try SessionSettingsDraft(mode: .qr).validated().allowTyping == false)
    }

    @Test func a_course_default_fills_what_a_session_leaves_out() throws {
        let defaults = SessionSettingsDraft(
            mode: .qr, period: 8, latitude: 52, longitude: 4, classroomSize: .hall, openMinutes: 90,
            lateAfterMinutes: 15, allowTyping: true, allowedNetworks: ["10.0.0.0/8"], room: "B204", typedPeriod: 40)
        #expect(SessionSettingsDraft().filling(from: defaults) == defaults, "nothing given: the defaults, all of them")
        let own = SessionSettingsDraft(period: 3, lateAfterMinutes: 5, allowTyping: false, room: "C1")
            .filling(from: defaults)
        #expect(own.period == 3 && own.lateAfterMinutes == 5 && own.allowTyping == false && own.room == "C1")
        #expect(own.mode == .qr && own.openMinutes == 90 && own.typedPeriod == 40 && own.latitude == 52)
        // A place of its own is not mixed with the default's: its radius does not meet the default's coordinates.
        let elsewhere = SessionSettingsDraft(latitude: 48.85, longitude: 2.35, radius: 40).filling(from: defaults)
        #expect(elsewhere.latitude == 48.85 && elsewhere.radius == 40 && elsewhere.classroomSize == nil)
        let settings = try SessionSettingsDraft().filling(from: defaults).validated()
        #expect(settings.geofence?.radius == ClassroomSize.hall.radius && settings.lateAfterMinutes == 15)
        #expect(
            SessionSettingsDraft(mode: .typed).filling(from: SessionSettingsDraft())
                == SessionSettingsDraft(mode: .typed))
    }
}

@Suite("Session phase", .timeLimit(.minutes(5)))
struct SessionPhaseTests {
    let opened = Date(timeIntervalSince1970: 1_000_000)

    @Test func a_session_is_open_from_opening_until_its_end() {
        let closes = opened.addingTimeInterval(600)
        #expect(
            SessionPhase.at(opened.addingTimeInterval(-1), openedAt: opened, closesAt: closes, closedAt: nil)
                == .scheduled)
        #expect(SessionPhase.at(opened, openedAt: opened, closesAt: closes, closedAt: nil) == .open)
        #expect(
            SessionPhase.at(closes.addingTimeInterval(-0.001), openedAt: opened, closesAt: closes, closedAt: nil)
                == .open)
        #expect(SessionPhase.at(closes, openedAt: opened, closesAt: closes, closedAt: nil) == .closed)
    }

    @Test func closing_by_hand_ends_it_at_once() {
        let closedAt = opened.addingTimeInterval(60)
        #expect(SessionPhase.at(closedAt, openedAt: opened, closesAt: nil, closedAt: closedAt) == .closed)
        #expect(
            SessionPhase.at(closedAt.addingTimeInterval(-1), openedAt: opened, closesAt: nil, closedAt: closedAt)
                == .open)
        #expect(SessionPhase.at(opened, openedAt: nil, closesAt: nil, closedAt: nil) == .scheduled)
    }

    @Test func a_scheduled_session_is_missed_once_its_time_to_close_has_passed() {
        let end = opened.addingTimeInterval(90 * 60)
        #expect(!SessionPhase.missed(.scheduled, scheduledAt: opened, openMinutes: 90, now: opened))
        #expect(!SessionPhase.missed(.scheduled, scheduledAt: opened, openMinutes: 90, now: end.addingTimeInterval(-1)))
        #expect(SessionPhase.missed(.scheduled, scheduledAt: opened, openMinutes: 90, now: end))
        #expect(!SessionPhase.missed(.scheduled, scheduledAt: nil, openMinutes: 90, now: end), "no time, no miss")
        for phase in [SessionPhase.open, .closed] {
            #expect(!SessionPhase.missed(phase, scheduledAt: opened, openMinutes: 90, now: end), "it took place")
        }
    }
}

@Suite("Small rules people run into", .timeLimit(.minutes(5)))
struct SmallRulesTests {
    @Test func a_password_of_spaces_alone_is_refused() {
        #expect(throws: RuleViolation.self) { try AccountRules.password("        ") }
        #expect(throws: RuleViolation.self) { try AccountRules.password("\t\t\t\t\t\t\t\t\t") }
        #expect((try? AccountRules.password("  two words  ")) != nil)
    }

    @Test func a_wrong_join_code_says_what_is_wrong_with_it() {
        #expect(JoinCode(typed: "ABCDEFG") == nil)
        #expect(JoinCode.problem(with: "ABCDEFG").description.hasPrefix("A join code never has B:"))
        #expect(JoinCode.problem(with: "k7mx3q").description.contains("this one has 6"))
        #expect(JoinCode.problem(with: "S0ZO1IL").description.hasPrefix("A join code never has 0, 1, I, L, O, S, Z:"))
    }
}
