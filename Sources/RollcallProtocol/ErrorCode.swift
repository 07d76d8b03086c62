/// Every stable error code Rollcall answers with, as clients read it in `{"error": {"code": …}}`.
///
/// Clients branch on these, so a published code never changes. Beside them stands one family, `invalid_<field>`
/// (such as `invalid_student_number`): a field that breaks one of Rollcall's rules (`RuleViolation`), named after the
/// field.
public enum ErrorCode: String, CaseIterable, Codable, Sendable {
    // MARK: Requests

    /// The body is not the JSON the route takes.
    case invalidJSON = "invalid_json"
    /// A required field of the body is missing.
    case missingField = "missing_field"
    /// A field of the body has the wrong JSON type.
    case wrongType = "wrong_type"
    /// A field was sent as `null` where it must be left out.
    case nullNotAllowed = "null_not_allowed"
    /// A route that takes JSON got no body.
    case missingBody = "missing_body"
    /// The body is not of a media type the route takes.
    case unsupportedMediaType = "unsupported_media_type"
    /// The body is larger than the route accepts.
    case bodyTooLarge = "body_too_large"
    /// The address is a WebSocket and the request did not upgrade.
    case websocketRequired = "websocket_required"
    /// Nothing is at this address.
    case notFound = "not_found"
    /// The address does not take this method.
    case methodNotAllowed = "method_not_allowed"
    /// A request the HTTP layer refused as malformed.
    case badRequest = "bad_request"
    /// A request that could not be read as HTTP at all.
    case malformedRequest = "malformed_request"
    /// A request whose headers are larger than Rollcall reads.
    case headersTooLarge = "headers_too_large"
    /// A range of a file that the file does not have.
    case rangeNotSatisfiable = "range_not_satisfiable"
    /// The HTTP layer asked for credentials.
    case unauthorized = "unauthorized"
    /// Too many tries in a short time; `Retry-After` says when to try again.
    case tooManyAttempts = "too_many_attempts"
    /// Something failed on the server's side.
    case internalError = "internal_error"
    /// The database does not answer, or its file was removed.
    case databaseUnavailable = "database_unavailable"
    /// The disk that holds the database is full.
    case storageFull = "storage_full"

    // MARK: Signing in and accounts

    /// The request needs a signed-in person.
    case notSignedIn = "not_signed_in"
    /// The person may not do this (their role, or what they are to the course).
    case forbidden
    /// A page's form token is missing or expired.
    case csrfTokenInvalid = "csrf_token_invalid"
    /// The account was disabled by an admin.
    case accountDisabled = "account_disabled"
    /// The account was deleted.
    case accountDeleted = "account_deleted"
    /// The email address or password is wrong.
    case invalidCredentials = "invalid_credentials"
    /// The current password given to change it is wrong.
    case invalidCurrentPassword = "invalid_current_password"
    /// Another account has this email address.
    case emailTaken = "email_taken"
    /// Another account has this student number.
    case studentNumberTaken = "student_number_taken"
    /// The role asked for does not exist, or cannot be chosen here.
    case invalidRole = "invalid_role"
    /// A teacher account still waits for an admin's approval.
    case approvalPending = "approval_pending"
    /// A language Rollcall has no catalog for.
    case invalidLanguage = "invalid_language"
    /// The email address is confirmed already.
    case alreadyVerified = "already_verified"
    /// A teacher whose address nobody has confirmed tried to add, import or invite students.
    case emailUnconfirmed = "email_unconfirmed"
    /// An email confirmation link that is unknown, used or expired.
    case invalidVerificationToken = "invalid_verification_token"
    /// A password reset link that is unknown, used or expired.
    case invalidResetToken = "invalid_reset_token"
    /// No access token to revoke came with the request.
    case invalidToken = "invalid_token"
    /// A texted code, typed code or projected code that is wrong, used or expired.
    case invalidCode = "invalid_code"
    /// Another account has confirmed this phone number.
    case phoneTaken = "phone_taken"
    /// The browser is no longer remembered for signing in without a code.
    case deviceNotRemembered = "device_not_remembered"
    /// An admin tried to disable their own account.
    case cannotDisableSelf = "cannot_disable_self"
    /// An admin tried to delete their own account from the privacy page.
    case cannotDeleteSelf = "cannot_delete_self"
    /// A picture that is not PNG, JPEG, WebP or GIF.
    case unsupportedImage = "unsupported_image"
    /// The `limit` of a listing is out of range.
    case invalidLimit = "invalid_limit"
    /// The `offset` of a listing is not a whole number from 0.
    case invalidOffset = "invalid_offset"
    /// The `before` cursor of a listing is not a message id.
    case invalidBefore = "invalid_before"
    /// The school's sign-in came back with no sign-in this browser started, or one used or expired.
    case ssoStateInvalid = "sso_state_invalid"
    /// The school's identity provider refused the sign-in, or sent an ID token Rollcall does not accept.
    case ssoTokenRefused = "sso_token_refused"
    /// The school's identity provider does not answer.
    case ssoProviderUnavailable = "sso_provider_unavailable"
    /// A password account has the address the school's sign-in gave; it is linked once its owner proves it.
    case ssoAccountExists = "sso_account_exists"
    /// A launch from a learning platform came back with no login this browser started, or one used or expired.
    case ltiStateInvalid = "lti_state_invalid"
    /// A launch from a learning platform broke a rule of LTI 1.3 or of its security framework.
    case ltiLaunchRefused = "lti_launch_refused"
    /// A learning platform Rollcall needs does not answer, or not as LTI 1.3 says.
    case ltiPlatformUnavailable = "lti_platform_unavailable"
    /// A learning platform with this issuer and client id is registered already.
    case ltiPlatformExists = "lti_platform_exists"
    /// The course picked is linked to another course of the learning platform already.
    case ltiCourseLinked = "lti_course_linked"
    /// The course is not linked to a course of a learning platform.
    case ltiNotLinked = "lti_not_linked"
    /// This school signs in through its own sign-in only: no passwords, no registration.
    case passwordSignInOff = "password_sign_in_off"
    /// An admin's role is not changed from the admin page (nor one's own).
    case adminRoleFixed = "admin_role_fixed"

    // MARK: Not found

    /// No such learning platform is registered.
    case ltiPlatformNotFound = "lti_platform_not_found"
    /// No such user.
    case userNotFound = "user_not_found"
    /// Nobody with this id, email or student number.
    case personNotFound = "person_not_found"
    /// No such student.
    case studentNotFound = "student_not_found"
    /// No such profile picture.
    case pictureNotFound = "picture_not_found"
    /// No such course.
    case courseNotFound = "course_not_found"
    /// No such course poster.
    case posterNotFound = "poster_not_found"
    /// The person does not teach or assist in the course.
    case staffNotFound = "staff_not_found"
    /// No such session.
    case sessionNotFound = "session_not_found"
    /// No such timetable slot.
    case timetableSlotNotFound = "timetable_slot_not_found"
    /// No such bulk change of attendance.
    case batchNotFound = "batch_not_found"
    /// No such quiz.
    case quizNotFound = "quiz_not_found"
    /// No such quiz run.
    case quizRunNotFound = "quiz_run_not_found"
    /// No such quiz attempt.
    case attemptNotFound = "attempt_not_found"
    /// No such passkey.
    case passkeyNotFound = "passkey_not_found"
    /// No such remembered browser.
    case rememberedDeviceNotFound = "remembered_device_not_found"
    /// No such exposure report.
    case exposureReportNotFound = "exposure_report_not_found"
    /// The API description is missing from the build.
    case apiDescriptionNotFound = "api_description_not_found"

    // MARK: Courses and rosters

    /// The course is archived: it keeps its records and takes no new sessions nor students.
    case courseArchived = "course_archived"
    /// No course has this join code, or the code is malformed.
    case invalidJoinCode = "invalid_join_code"
    /// The person is the course's own teacher already.
    case alreadyTeacher = "already_teacher"
    /// Only an approved teacher can co-teach.
    case notATeacher = "not_a_teacher"
    /// Only a student can be put on a roster.
    case notAStudent = "not_a_student"
    /// A roster file that is not UTF-8 text.
    case invalidEncoding = "invalid_encoding"
    /// A roster file that is not CSV.
    case invalidCSV = "invalid_csv"
    /// Rows of a roster file need mending; each row's own code says why.
    case invalidRows = "invalid_rows"
    /// A time zone that is not an IANA name.
    case invalidTimeZone = "invalid_time_zone"

    // MARK: Sessions

    /// The session is open already.
    case sessionAlreadyOpen = "session_already_open"
    /// The session has closed.
    case sessionClosed = "session_closed"
    /// The session has not opened yet.
    case sessionNotStarted = "session_not_started"
    /// The session has opened, so its start can no longer move.
    case sessionStarted = "session_started"
    /// The session is not open.
    case sessionNotOpen = "session_not_open"
    /// Deleting the session also deletes records: the request must name how many.
    case confirmDelete = "confirm_delete"
    /// The `records` confirmation is not a whole number.
    case invalidRecords = "invalid_records"
    /// The `attempts` confirmation is not a whole number.
    case invalidAttempts = "invalid_attempts"
    /// An admin asked to make themself a health officer while another admin could do it.
    case secondAdminRequired = "second_admin_required"
    /// Records that must be kept stand in the way.
    case recordsMustBeKept = "records_must_be_kept"
    /// The course has as many weekly classes as it may.
    case timetableFull = "timetable_full"
    /// A weekly class would schedule more sessions to come than a course may hold.
    case tooManySessions = "too_many_sessions"
    /// A time that is not a date and time.
    case invalidScheduledAt = "invalid_scheduled_at"
    /// A number of minutes out of range.
    case invalidMinutes = "invalid_minutes"

    // MARK: Checking in

    /// The projected code is older than the grace window.
    case codeExpired = "code_expired"
    /// The student is not on the course's roster.
    case notEnrolled = "not_enrolled"
    /// The session needs a location and none came.
    case locationRequired = "location_required"
    /// The location came, but too imprecise to decide.
    case locationInaccurate = "location_inaccurate"
    /// The location is not a place on Earth.
    case invalidLocation = "invalid_location"
    /// The student is outside the classroom's reach.
    case outOfRange = "out_of_range"
    /// The check-in came from outside the allowed networks.
    case networkNotAllowed = "network_not_allowed"
    /// The course asks for a passkey and none was presented.
    case verificationRequired = "verification_required"
    /// The passkey did not prove the student's identity.
    case verificationFailed = "verification_failed"
    /// This phone already checked in another student in this session.
    case deviceAlreadyUsed = "device_already_used"
    /// A device id that is not 8 to 128 letters, digits or dashes.
    case invalidDeviceID = "invalid_device_id"
    /// A check-in's heard pseudo-IDs that are not 32 hexadecimal digits each, or too many.
    case invalidHeard = "invalid_heard"

    // MARK: Passkeys

    /// The passkey is registered already.
    case passkeyAlreadyRegistered = "passkey_already_registered"
    /// The passkey request is unknown or was used.
    case passkeyChallengeUnknown = "passkey_challenge_unknown"
    /// The passkey request took too long.
    case passkeyChallengeExpired = "passkey_challenge_expired"
    /// The passkey did not say whose it is.
    case passkeyUserHandleMissing = "passkey_user_handle_missing"
    /// The passkey's counter went backwards: it may have been copied.
    case passkeyCounterRegressed = "passkey_counter_regressed"
    /// The browser's answer is not in the form WebAuthn defines.
    case passkeyMalformed = "passkey_malformed"
    /// The public key is not a COSE key Rollcall can use.
    case passkeyKeyMalformed = "passkey_key_malformed"
    /// The key's algorithm is not ES256, EdDSA or RS256.
    case passkeyAlgorithmUnsupported = "passkey_algorithm_unsupported"
    /// An attestation other than none or packed self-attestation.
    case passkeyAttestationUnsupported = "passkey_attestation_unsupported"
    /// The client data is for another ceremony.
    case passkeyWrongType = "passkey_wrong_type"
    /// The signed challenge is not the one handed out.
    case passkeyWrongChallenge = "passkey_wrong_challenge"
    /// The page that asked is not Rollcall's own address.
    case passkeyWrongOrigin = "passkey_wrong_origin"
    /// The authenticator signed for another site.
    case passkeyWrongRelyingParty = "passkey_wrong_relying_party"
    /// The authenticator saw nobody touch or look at it.
    case passkeyUserNotPresent = "passkey_user_not_present"
    /// The authenticator did not check the person's fingerprint, face or PIN.
    case passkeyUserNotVerified = "passkey_user_not_verified"
    /// The signature does not match the registered key.
    case passkeyBadSignature = "passkey_bad_signature"
    /// The assertion names another passkey or person.
    case passkeyUnknown = "passkey_unknown"
    /// The authenticator claims a backup state that cannot be.
    case passkeyBackupStateInvalid = "passkey_backup_state_invalid"

    // MARK: Records

    /// A status other than present, late, excused or absent.
    case invalidStatus = "invalid_status"
    /// A bulk change names no students, too many, or one twice.
    case invalidStudentIDs = "invalid_student_ids"
    /// A filter of the bulk change that does not exist.
    case invalidFilter = "invalid_filter"
    /// An absentee threshold that is not a percentage.
    case invalidThreshold = "invalid_threshold"
    /// Nobody marks their own attendance by hand; the course's teacher does.
    case cannotMarkSelf = "cannot_mark_self"
    /// The change was undone already.
    case alreadyUndone = "already_undone"
    /// A later change must be undone first.
    case notLatest = "not_latest"
    /// Records changed since the change to undo.
    case changedSince = "changed_since"

    // MARK: Quizzes

    /// The quiz is running in this session already.
    case quizAlreadyRunning = "quiz_already_running"
    /// The quiz is archived because students answered it.
    case quizArchived = "quiz_archived"
    /// The teacher stopped the quiz.
    case quizStopped = "quiz_stopped"
    /// The student is let in already.
    case alreadyAdmitted = "already_admitted"
    /// The student has not checked in to the quiz's session.
    case notCheckedIn = "not_checked_in"
    /// The attempt is closed (submitted, timed out, ended).
    case attemptClosed = "attempt_closed"
    /// The answer came after the time limit.
    case timeLimitPassed = "time_limit_passed"
    /// A newer answer to the question is saved already.
    case staleSequence = "stale_sequence"
    /// A save's sequence number is not a positive whole number.
    case invalidSequence = "invalid_sequence"
    /// The quiz has no such question.
    case unknownQuestion = "unknown_question"
    /// An answer of another kind than the question.
    case wrongAnswerType = "wrong_answer_type"
    /// An option the question does not have, or the same twice.
    case noSuchOption = "no_such_option"
    /// An answer too long, with control characters, or not a finite number.
    case invalidAnswer = "invalid_answer"
    /// Too few or too many integrity flags at once.
    case invalidFlags = "invalid_flags"
    /// An integrity flag of a kind Rollcall does not record.
    case unknownFlagKind = "unknown_flag_kind"
    /// Extra time out of range.
    case invalidSeconds = "invalid_seconds"
    /// A marking comment that is too long.
    case invalidComment = "invalid_comment"

    // MARK: Live views

    /// A resume point that is not one of the view's events.
    case invalidAfter = "invalid_after"

    // MARK: Exposure reports

    /// The person of a report is not named by exactly one of id, email or student number.
    case invalidPerson = "invalid_person"
    /// A report's end that is not a day or moment, or lies in the future.
    case invalidUntil = "invalid_until"
    /// A report's number of days out of range.
    case invalidDays = "invalid_days"
    /// A report's window reaches past what retention keeps.
    case windowBeyondRetention = "window_beyond_retention"

    // MARK: Proximity

    /// The person has proximity off: no pseudo-IDs are issued and no encounters taken until they turn it on.
    case proximityOff = "proximity_off"
    /// Too many requests for pseudo-IDs in a day.
    case tooManyProximityRequests = "too_many_proximity_requests"
    /// Too many uploads of encounters in an hour.
    case tooManyProximityUploads = "too_many_proximity_uploads"
    /// An upload answers a health officer's request that is not the person's.
    case proximityRequestNotFound = "proximity_request_not_found"

    // MARK: Operations

    /// `/metrics` was asked from outside its networks.
    case metricsForbidden = "metrics_forbidden"
    /// `/metrics` was asked without its token.
    case metricsTokenRequired = "metrics_token_required"
}
