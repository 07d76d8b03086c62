import Foundation
import Hummingbird
import NIOCore
import RollcallModel

/// An image as the browser gets it: cached privately for a minute.
extension StoredImage {
    package var response: Response {
        Response(
            status: .ok,
            headers: [.contentType: contentType, .cacheControl: "private, max-age=60"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
