/// Who is making the request, as the access token or session cookie says.
package struct Identity: Sendable {
    package var user: User
    package var tokenHash: String
    package var csrf: String
    /// Cookie-borne identities need a CSRF token on every change; bearer tokens cannot be sent by another site.
    package var viaCookie: Bool

    package init(user: User, tokenHash: String, csrf: String, viaCookie: Bool) {
        self.user = user
        self.tokenHash = tokenHash
        self.csrf = csrf
        self.viaCookie = viaCookie
    }
}
