// Minimal streaming JSON writer for --json / JSONL output. Always produces
// valid UTF-8: invalid input bytes are replaced by U+FFFD.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace osearch {

class JsonWriter {
public:
    void begin_object();
    void end_object();
    void begin_array();
    void end_array();
    // Inside an object, each key() must be followed by exactly one value
    // (scalar, object or array). Misuse asserts in debug builds.
    void key(std::string_view k);

    void value(std::string_view s);
    void value(const char* s);  // so string literals don't pick value(bool); nullptr -> null
    void value(int64_t v);
    void value(uint64_t v);
    void value(int v);
    void value(double v);  // up to 3 decimals, trailing zeros trimmed; NaN/inf -> null
    void value(bool v);
    void null();

    // Successive top-level values are separated by '\n', so one writer can
    // emit JSON Lines.
    const std::string& str() const { return out_; }
    // Returns the text and resets the writer for reuse.
    std::string take();

    // From now on, whenever the text passes `bytes` it is handed to `sink` and the buffer reused,
    // so a large answer streams out instead of being held whole (and its pages touched twice as
    // the buffer doubles). str() is then only the part not yet handed over.
    void flush_to(std::function<void(std::string_view)> sink, size_t bytes = 64 * 1024);

private:
    void before_value();

    struct Frame {
        bool object;
        bool first;
    };
    std::string out_;
    std::function<void(std::string_view)> sink_;
    size_t flush_bytes_ = 0;
    std::vector<Frame> stack_;
    bool after_key_ = false;
    bool wrote_top_level_ = false;
};

// `s` as a quoted, escaped JSON string.
std::string json_escape(std::string_view s);

}  // namespace osearch
