import Hummingbird

/// Every path of attendance records: corrections, audit logs and reports.
enum RecordRoutes {
    static let attendance = APIPath.api("sessions/:sessionID/attendance/:studentID")
    static let bulkAttendance = APIPath.api("sessions/:sessionID/attendance")
    static let undoBatch = APIPath.api("attendance-batches/:batchID/undo")
    static let sessionAudit = APIPath.api("sessions/:sessionID/audit")
    static let sessionReport = APIPath.api("sessions/:sessionID/report.csv")
    static let courseReport = APIPath.api("courses/:courseID/report.csv")
    static let absentees = APIPath.api("courses/:courseID/absentees")
    static let studentAttendance = APIPath.api("courses/:courseID/students/:studentID/attendance")
}

extension RecordRoutes {
    static let studentPage: RouterPath = "/courses/:courseID/students/:studentID"
    static let gridPage: RouterPath = "/courses/:courseID/grid"
}
