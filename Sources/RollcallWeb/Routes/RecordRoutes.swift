import Hummingbird

/// Every path of attendance records: corrections, audit logs and reports.
package enum RecordRoutes {
    package static let attendance = APIPath.api("sessions/:sessionID/attendance/:studentID")
    package static let bulkAttendance = APIPath.api("sessions/:sessionID/attendance")
    package static let undoBatch = APIPath.api("attendance-batches/:batchID/undo")
    package static let sessionAudit = APIPath.api("sessions/:sessionID/audit")
    package static let sessionReport = APIPath.api("sessions/:sessionID/report.csv")
    package static let courseReport = APIPath.api("courses/:courseID/report.csv")
    package static let absentees = APIPath.api("courses/:courseID/absentees")
    package static let studentAttendance = APIPath.api("courses/:courseID/students/:studentID/attendance")
}

extension RecordRoutes {
    package static let studentPage: RouterPath = "/courses/:courseID/students/:studentID"
    package static let gridPage: RouterPath = "/courses/:courseID/grid"
}
