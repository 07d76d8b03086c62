import Foundation

/// Files shipped inside the package's resource bundle: templates, static assets, the API description.
package enum ResourceFiles {
    /// Built from `bundleURL` because Foundation on Linux treats a bundle's `Resources` folder as its resource URL,
    /// which would make the same relative path differ between platforms.
    package static func path(_ relative: String) -> String {
        Bundle.module.bundleURL.appendingPathComponent("Resources").appendingPathComponent(relative).path
    }
}
