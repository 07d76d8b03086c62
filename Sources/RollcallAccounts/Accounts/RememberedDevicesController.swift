import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallWeb
import RollcallWords

/// Remembered browsers: signing in again on one without a code, and listing and forgetting them.
struct RememberedDevicesController: Sendable {
    let devices: RememberedDevices
    let users: UserStore
    let signIns: SignIns

    /// A remembered device as the API shows it to its owner.
    struct DeviceView: Codable, Sendable {
        var id: Int64
        var name: String
        var phone: String
        var createdAt: Date
        var lastUsedAt: Date?
        var expiresAt: Date
        /// The device this request comes from.
        var current: Bool
    }
    struct DeviceList: Codable, ResponseEncodable {
        var devices: [DeviceView]
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post(AccountRoutes.deviceSession, use: signIn)
        router.delete(AccountRoutes.thisDevice, use: forgetThisDevice)
        router.get(AccountRoutes.myDevices, use: list)
        router.delete(AccountRoutes.myDevice, use: forget)
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let forgotten = AppError(
            .unauthorized, .deviceNotRemembered,
            "This browser is no longer remembered. Sign in with a texted code, a passkey or your password.")
        guard let (device, user) = try await devices.recognised(request, users: users) else { throw forgotten }
        do {
            let response = try await signIns.startWebSession(
                for: user, device: device.id, request: request, context: context)
            try await devices.markUsed(id: device.id)
            return response
        } catch is DeviceForgotten {
            throw forgotten
        }
    }

    /// Forgets the device this browser stands for, signed in or not, and clears its cookie: for a shared computer.
    @Sendable func forgetThisDevice(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let cookie = request.cookies[RememberedDevices.cookieName]?.value,
            let device = try await devices.device(cookie: cookie)
        {
            // The cookie proves the browser: it may forget itself for whoever it remembers.
            _ = try await devices.forget(id: device.id, userID: device.userId)
        }
        var response = Response(status: .noContent)
        response.setCookie(signIns.deviceCookie("", maxAge: 0))
        return response
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> DeviceList {
        let user = try context.requireUser()
        let current = try await devices.current(request)
        return DeviceList(
            devices: try await devices.list(userID: user.id).map { device in
                DeviceView(
                    id: device.id, name: device.name, phone: device.phone, createdAt: device.createdAt,
                    lastUsedAt: device.lastUsedAt, expiresAt: device.expiresAt, current: device.id == current)
            })
    }

    @Sendable func forget(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try context.id("deviceID", .rememberedDeviceNotFound, "remembered device")
        guard try await devices.forget(id: id, userID: user.id) else {
            throw AppError.notFound(.rememberedDeviceNotFound, "remembered device")
        }
        var response = Response(status: .noContent)
        if id == (try await devices.current(request)) { response.setCookie(signIns.deviceCookie("", maxAge: 0)) }
        return response
    }
}
