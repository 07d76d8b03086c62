import Foundation
import Hummingbird
import RollcallCore
import RollcallDelivery
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWeb
import RollcallWords

/// Signing in with a phone number and a texted code, and adding and confirming the number on the profile.
struct PhoneController: Sendable {
    let users: UserStore
    let codes: PhoneCodes
    let signIns: SignIns
    let devices: RememberedDevices
    let texts: any MessageSender
    let counters: AttemptCounters
    let site: SiteSettings

    /// Codes to one number per hour.
    static let perNumber = RateLimit(limit: 5, window: 3600)
    /// Codes asked from one client address per hour: a class signing in at once fits.
    static let perAddress = RateLimit(limit: 60, window: 3600)
    /// Codes checked from one client address per hour, right or wrong.
    static let checksPerAddress = RateLimit(limit: 120, window: 3600)

    struct CodeRequest: Decodable {
        var phone: String
    }
    struct CodeCheck: Decodable {
        var phone: String
        var code: String
        /// On the web: remember this browser for 30 days, so that this phone is not asked for a code again.
        var rememberDevice: Bool?
    }
    /// The answer to asking for a code, the same whether or not the number has an account.
    struct CodeSent: Codable, ResponseEncodable {
        var phone: String
        /// Seconds until another code may be asked for this number.
        var nextCodeIn: Int
        var message: String
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post(AccountRoutes.phoneCode, use: sendSignInCode)
        router.post(AccountRoutes.phoneSession, use: signInWeb)
        router.post(AccountRoutes.phoneTokens, use: signInAPI)
        router.post(AccountRoutes.myPhone, use: sendConfirmationCode)
        router.post(AccountRoutes.myPhoneConfirmation, use: confirm)
        router.delete(AccountRoutes.myPhone, use: remove)
    }

    func phone(_ raw: String) throws -> String {
        try check { () throws(RuleViolation) in
            try PhoneNumber.normalized(raw, defaultRegion: site.defaultRegion)
        }
    }

    /// Applies the limits on texting `phone` from `address`: one code per 30 s (`phoneCodeInterval`) and five per hour
    /// per number, sixty per hour per address. Counted whether or not the number has an account, so the limits
    /// reveal nothing. A confirmation's number is counted for the person asking (`requester`) alone: a count the
    /// number's owner shared would refuse a prober sooner for a number in use than for a free one.
    func admitCode(
        to phone: String, for purpose: PhoneCodePurpose, from address: String?, requester: Int64? = nil
    ) async throws {
        let number = requester.map { "\($0) \(phone)" } ?? phone
        try await counters.admit(
            .phoneCodeAddress, key: address ?? "-", under: Self.perAddress,
            refusal: "Too many codes were asked from this network. Try again in an hour.")
        let now = Date()
        // The wait is per purpose: confirming a number on the profile does not hold up signing in with it.
        let wait: TimeInterval? = try await counters.update(.phoneCodeInterval, key: "\(purpose.rawValue) \(number)") {
            current in
            if let current, now.timeIntervalSince(current.last) < site.phoneCodeInterval {
                return (current, site.phoneCodeInterval - now.timeIntervalSince(current.last))
            }
            return (AttemptCounters.Counter(count: 1, since: now, last: now), TimeInterval?.none)
        }
        if let wait {
            let seconds = Int(wait.rounded(.up))
            throw TooManyAttempts(
                retryAfter: seconds,
                message: .counting(
                    seconds, one: "A code was just sent. You can ask for a new one in {0} second.",
                    other: "A code was just sent. You can ask for a new one in {0} seconds."))
        }
        try await counters.admit(
            .phoneCodeNumber, key: requester == nil ? phone : "\(purpose.rawValue) \(number)", under: Self.perNumber,
            refusal: "This number was sent five codes in the last hour. Try again later, or sign in another way.")
    }

    func sent(_ phone: String, to reader: Reader) -> CodeSent {
        CodeSent(
            phone: phone, nextCodeIn: Int(site.phoneCodeInterval.rounded(.up)),
            message: reader.say(
                "If this number belongs to an account, a 6-digit code is on its way by text message. It works for 5 minutes."
            )
        )
    }

    func text(_ code: String, to phone: String, purpose: PhoneCodePurpose, in reader: Reader) async throws {
        let school = Letters(school: site.schoolName, reader: reader).signature
        try await texts.send(
            OutgoingMessage(
                channel: .sms, recipient: phone, recipientName: nil,
                subject: purpose == .signIn ? reader.say("Sign-in code") : reader.say("Phone confirmation code"),
                text: purpose == .signIn
                    ? reader.say(
                        "\(code) is your \(school) sign-in code. It works for 5 minutes. Nobody from school will ask you for it."
                    )
                    : reader.say(
                        "\(code) is your \(school) code to confirm this number. It works for 5 minutes. Nobody from school will ask you for it."
                    ),
                html: nil))
    }

    @Sendable func sendSignInCode(_ request: Request, context: AppRequestContext) async throws -> Response {
        let phone = try phone(try await request.decodeJSON(as: CodeRequest.self, context: context).phone)
        try await admitCode(to: phone, for: .signIn, from: context.clientAddress)
        if let user = try await users.directory.find(confirmedPhone: phone), !user.disabled, user.deletedAt == nil,
            // Asked before the text goes, so a number that may not sign in is answered as one without an account.
            try await signIns.signsIn(user)
        {
            let code = try await codes.issue(.signIn, phone: phone, userID: user.id)
            try await text(code, to: phone, purpose: .signIn, in: context.reader)
        }
        return try sent(phone, to: context.reader).response(from: request, context: context, status: .accepted)
    }

    /// The person whose code this is, and what they asked, or the same refusal for a wrong, used, expired or unknown
    /// code or number.
    func authenticate(_ request: Request, context: AppRequestContext) async throws -> (User, CodeCheck) {
        let input = try await request.decodeJSON(as: CodeCheck.self, context: context)
        let phone = try phone(input.phone)
        try await counters.admit(
            .phoneCodeCheck, key: context.clientAddress ?? "-", under: Self.checksPerAddress,
            refusal: "Too many codes were tried from this network. Try again in an hour.")
        let code = input.code.filter { !$0.isWhitespace }
        guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }),
            let userID = try await codes.redeem(.signIn, phone: phone, code: code),
            let user = try await users.find(id: userID),
            // The number may have been removed or changed while the text was on its way.
            user.phone == phone, user.phoneConfirmedAt != nil, try await signIns.signsIn(user)
        else {
            throw AppError(
                .unauthorized, .invalidCode,
                "The code is wrong, used or expired. Check the last text message, or ask for a new code.")
        }
        guard !user.disabled, user.deletedAt == nil else { throw AppError.accountDisabled }
        return (user, input)
    }

    @Sendable func signInWeb(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (user, input) = try await authenticate(request, context: context)
        guard input.rememberDevice == true, let phone = user.phone else {
            return try await signIns.startWebSession(for: user, request: request, context: context)
        }
        let remembered = try await devices.remember(
            userID: user.id, phone: phone, name: DeviceName.describe(userAgent: request.headers[.userAgent]))
        var response = try await signIns.startWebSession(
            for: user, device: remembered.device.id, request: request, context: context)
        response.setCookie(signIns.deviceCookie(remembered.cookie, maxAge: Int(RememberedDevices.lifetime)))
        return response
    }

    @Sendable func signInAPI(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (user, _) = try await authenticate(request, context: context)
        return try await signIns.issueAPIToken(for: user, request: request, context: context)
    }

    @Sendable func sendConfirmationCode(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let phone = try phone(try await request.decodeJSON(as: CodeRequest.self, context: context).phone)
        // The same answer whoever holds the number, counted like any other: only the person who holds the phone,
        // and so its code, learns at confirmation that another account confirmed it (`confirm`).
        try await admitCode(to: phone, for: .confirm, from: context.clientAddress, requester: user.id)
        let code = try await codes.issue(.confirm, phone: phone, userID: user.id)
        try await text(code, to: phone, purpose: .confirm, in: context.reader)
        var answer = sent(phone, to: context.reader)
        answer.message = context.reader.say(
            "A 6-digit code is on its way to \(phone) by text message. It works for 5 minutes.")
        return try answer.response(from: request, context: context, status: .accepted)
    }

    @Sendable func confirm(_ request: Request, context: AppRequestContext) async throws
        -> AccountsController
        .UserEnvelope
    {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(as: CodeCheck.self, context: context)
        let phone = try phone(input.phone)
        // Before the code is used: a number someone else proved meanwhile leaves this person's code as it was.
        if let holder = try await users.directory.find(confirmedPhone: phone), holder.id != user.id {
            throw AppError.conflict(.phoneTaken, "Another account has confirmed this number already.")
        }
        let code = input.code.filter { !$0.isWhitespace }
        guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }),
            try await codes.redeem(.confirm, phone: phone, userID: user.id, code: code) == user.id
        else {
            throw AppError(
                .badRequest, .invalidCode,
                "The code is wrong, used or expired. Check the last text message, or ask for a new code.")
        }
        do {
            try await users.confirmPhone(id: user.id, phone: phone)
        } catch is PhoneTaken {
            throw AppError.conflict(.phoneTaken, "Another account has confirmed this number already.")
        }
        guard let updated = try await users.find(id: user.id) else { throw AppError.notFound(.userNotFound, "user") }
        return AccountsController.UserEnvelope(user: UserView(updated))
    }

    @Sendable func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        try await users.clearPhone(id: user.id)
        return Response(status: .noContent)
    }
}
