internal import CGStreamer
import FoundationEssentials
import Glibc

extension TagList {
    /// A GstDateTime tag ("datetime") as the wall-clock time in `timeZone`, with its offset:
    /// EXIF DateTimeOriginal has no zone and is read as the camera's local time.
    public mutating func set(_ tag: String, _ date: Date, timeZone: TimeZone) throws(GStreamerError) {
        let c = Calendar(identifier: .gregorian).dateComponents(in: timeZone, from: date)
        let offset = Float(timeZone.secondsFromGMT(for: date)) / 3600
        guard let dt = gst_date_time_new(offset, gint(c.year!), gint(c.month!), gint(c.day!), gint(c.hour!),
                                         gint(c.minute!), Double(c.second!) + Double(c.nanosecond!) / 1e9)
        else { throw GStreamerError(message: "cannot represent \(date) as a GstDateTime") }
        defer { gst_date_time_unref(dt) }
        try set(tag, type: "GstDateTime") {
            g_value_init(&$0, gst_date_time_get_type())
            g_value_set_boxed(&$0, UnsafeRawPointer(dt))
        }
    }
}
