#include "reference/io/tensor_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "reference/common/error.hpp"
#include "reference/io/input.hpp"
#include "reference/io/output_file.hpp"

namespace warpsparse::io {

static_assert(std::endian::native == std::endian::little, "the tensor readers assume a little-endian host");

std::string_view to_string(DType d) {
  switch (d) {
    case DType::f16: return "F16";
    case DType::bf16: return "BF16";
    case DType::f32: return "F32";
    case DType::i8: return "I8";
    case DType::other: return "other";
  }
  return "?";
}

ValueType value_type_of(DType d) {
  switch (d) {
    case DType::f16: return ValueType::fp16;
    case DType::bf16: return ValueType::bf16;
    case DType::f32: return ValueType::fp32;
    case DType::i8: return ValueType::int8;
    case DType::other: break;
  }
  throw Error("no value type for this dtype");
}

std::string TensorInfo::shape_string() const {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::uint64_t TensorInfo::elements() const {
  std::uint64_t n = 1;
  for (const auto d : shape) n = sat_mul(n, static_cast<std::uint64_t>(d));
  return n;
}

namespace {

// Shapes beyond this many elements are refused while parsing (2^48: far above any weight, far
// below where a byte count could overflow).
constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 48;
// The safetensors format's own bound on its header, and ours on .npy headers.
constexpr std::uint64_t kMaxSafetensorsHeader = std::uint64_t{100} << 20;
constexpr std::uint64_t kMaxNpyHeader = std::uint64_t{1} << 20;

// ---- memory-mapped files ----------------------------------------------------------------------

class MappedFile {
 public:
  explicit MappedFile(const std::string& path) : path_(path) {
    require_file_name(path);
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) throw Error(path + ": cannot open for reading: " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory, not a file");
    if (!S_ISREG(st.st_mode))
      throw Error(path + ": is not a regular file (tensor files are read with random access: save the stream to a file first)");
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error(path + ": cannot open for reading: " + std::strerror(errno));
    size_ = static_cast<std::uint64_t>(st.st_size);
    if (size_ > 0) {
      void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
      if (p == MAP_FAILED) {
        ::close(fd_);
        throw Error(path + ": cannot map the file: " + std::strerror(errno));
      }
      data_ = static_cast<const std::uint8_t*>(p);
    }
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (data_) munmap(const_cast<std::uint8_t*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
  }
  std::span<const std::uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }
  // Hands the pages of [offset, offset + n) back to the kernel (clean file pages: a later read maps
  // them again from the page cache or the disk).
  void release(std::uint64_t offset, std::uint64_t n) const {
    if (!data_ || n == 0) return;
    const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    const std::uint64_t b = offset / page * page, e = std::min(size_, offset + n);
    if (e > b) madvise(const_cast<std::uint8_t*>(data_) + b, e - b, MADV_DONTNEED);
  }

 private:
  std::string path_;
  int fd_ = -1;
  const std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;
};

std::uint64_t read_u64(std::span<const std::uint8_t> b, std::size_t at) {
  std::uint64_t v = 0;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}

// A short quote of untrusted text for a message.
std::string quote(std::string_view s) {
  std::string out;
  for (const char c : s.substr(0, 60)) out += (c >= 32 && c < 127) ? c : '?';
  return "'" + out + (s.size() > 60 ? "...'" : "'");
}

DType safetensors_dtype(const std::string& d) {
  if (d == "F16") return DType::f16;
  if (d == "BF16") return DType::bf16;
  if (d == "F32") return DType::f32;
  if (d == "I8") return DType::i8;
  return DType::other;
}

// Elements of a shape, refusing negative sides and products past kMaxElements.
std::uint64_t checked_elements(const std::vector<std::int64_t>& shape, const std::string& where) {
  std::uint64_t n = 1;
  for (const auto d : shape) {
    if (d < 0) throw Error(where + ": shape has a negative side");
    n = sat_mul(n, static_cast<std::uint64_t>(d));
  }
  if (n > kMaxElements) throw Error(where + ": shape has " + (n == UINT64_MAX ? std::string("more than 2^64") : std::to_string(n)) +
                                    " elements, more than 2^48");
  return n;
}

}  // namespace

std::uint64_t safetensors_item_bytes(const std::string& d) {
  static const std::map<std::string, std::uint64_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"F8_E8M0", 1}, {"I16", 2},
      {"U16", 2},  {"F16", 2}, {"BF16", 2}, {"I32", 4},    {"U32", 4},     {"F32", 4},     {"I64", 8},
      {"U64", 8},  {"F64", 8}, {"C64", 8}};
  const auto it = sizes.find(d);
  return it == sizes.end() ? 0 : it->second;
}

// ---- safetensors --------------------------------------------------------------------------------

SafetensorsHeader parse_safetensors(std::span<const std::uint8_t> b, const std::string& file) {
  if (b.size() < 8) throw Error(fmt::format("{}: byte 0: header length: truncated (the file has {} bytes)", file, b.size()));
  const std::uint64_t n = read_u64(b, 0);
  if (n > kMaxSafetensorsHeader)
    throw Error(fmt::format("{}: byte 0: header length: {} bytes, above the format's limit of 100 MiB", file, n));
  if (8 + n > b.size())
    throw Error(fmt::format("{}: byte 0: header length: {} bytes, but the file has only {} after it (truncated, or not safetensors)",
                            file, n, b.size() - 8));
  const auto text = b.subspan(8, n);
  if (n < 2 || text[0] != '{') throw Error(fmt::format("{}: byte 8: header: does not start with '{{' (not a safetensors file)", file));
  using nlohmann::json;
  std::set<std::string> keys;
  std::string duplicate;
  const json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
    // Tensor entries nest three deep ({"t": {"shape": [..]}}); deeper is not safetensors.
    if (depth > 4) throw Error(fmt::format("{}: header: nested deeper than a safetensors header can be", file));
    if (event == json::parse_event_t::key && depth == 1 && !keys.insert(parsed.get<std::string>()).second && duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  json h;
  try {
    h = json::parse(text.begin(), text.end(), cb);
  } catch (const json::parse_error& e) {
    throw Error(fmt::format("{}: byte {}: header: not valid JSON", file, 8 + e.byte - (e.byte > 0 ? 1 : 0)));
  } catch (const json::exception&) {  // e.g. a number beyond a double
    throw Error(file + ": header: not valid JSON (a number out of range)");
  }
  if (!h.is_object()) throw Error(file + ": byte 8: header: not a JSON object");
  if (!duplicate.empty()) throw Error(file + ": header: tensor " + quote(duplicate) + " is listed twice");
  SafetensorsHeader out;
  out.data_start = 8 + n;
  const std::uint64_t data_size = b.size() - out.data_start;
  for (auto it = h.begin(); it != h.end(); ++it) {
    const std::string where = file + ": tensor " + quote(it.key());
    if (it.key() == "__metadata__") {
      if (!it->is_object()) throw Error(file + ": header: __metadata__ is not an object of strings");
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string()) throw Error(file + ": header: __metadata__ " + quote(m.key()) + " is not a string");
        out.metadata[m.key()] = m->get<std::string>();
      }
      continue;
    }
    const json& e = *it;
    if (!e.is_object()) throw Error(where + ": not an object with dtype, shape and data_offsets");
    const auto dt = e.find("dtype");
    const auto sh = e.find("shape");
    const auto off = e.find("data_offsets");
    if (dt == e.end() || !dt->is_string()) throw Error(where + ": dtype: missing or not a string");
    if (sh == e.end() || !sh->is_array()) throw Error(where + ": shape: missing or not an array");
    if (off == e.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned())
      throw Error(where + ": data_offsets: missing or not two non-negative integers");
    TensorInfo t;
    t.name = it.key();
    t.file = file;
    t.dtype_name = dt->get<std::string>();
    t.safetensors_dtype = t.dtype_name;
    t.dtype = safetensors_dtype(t.dtype_name);
    t.item_bytes = safetensors_item_bytes(t.dtype_name);
    if (t.item_bytes == 0) throw Error(where + ": dtype: unknown dtype " + quote(t.dtype_name));
    for (const auto& d : *sh) {
      if (!d.is_number_unsigned() || d.get<std::uint64_t>() > kMaxElements)
        throw Error(where + ": shape: " + quote(sh->dump()) + " is not a list of non-negative integers");
      t.shape.push_back(static_cast<std::int64_t>(d.get<std::uint64_t>()));
    }
    const std::uint64_t elems = checked_elements(t.shape, where);
    const std::uint64_t begin = (*off)[0].get<std::uint64_t>(), end = (*off)[1].get<std::uint64_t>();
    if (begin > end) throw Error(fmt::format("{}: data_offsets: [{}, {}] ends before it begins", where, begin, end));
    if (end > data_size)
      throw Error(fmt::format("{}: data_offsets: [{}, {}] reaches past the data ({} bytes after the header)", where, begin,
                              end, data_size));
    if (end - begin != elems * t.item_bytes)
      throw Error(fmt::format("{}: data_offsets: [{}, {}] holds {} bytes, but shape {} of {} needs {}", where, begin, end,
                              end - begin, t.shape_string(), t.dtype_name, elems * t.item_bytes));
    t.offset = out.data_start + begin;
    t.bytes = end - begin;
    out.tensors.push_back(std::move(t));
  }
  std::sort(out.tensors.begin(), out.tensors.end(), [](const TensorInfo& a, const TensorInfo& c) {
    return a.offset != c.offset ? a.offset < c.offset : a.name < c.name;
  });
  // Against the non-empty tensor that reaches furthest so far, not the neighbour: an empty tensor may
  // sit between two that overlap.
  const TensorInfo* reach = nullptr;
  for (const TensorInfo& t : out.tensors) {
    if (t.bytes == 0) continue;
    if (reach != nullptr && t.offset < reach->offset + reach->bytes)
      throw Error(fmt::format("{}: tensor {}: data_offsets overlap those of tensor {}", file, quote(t.name),
                              quote(reach->name)));
    if (reach == nullptr || t.offset + t.bytes > reach->offset + reach->bytes) reach = &t;
  }
  return out;
}

// ---- npy ----------------------------------------------------------------------------------------

namespace {

// The header of a .npy file is a Python dict literal: {'descr': '<f2', 'fortran_order': False,
// 'shape': (3, 4), }. This reads exactly that grammar: quoted strings, True/False, tuples of
// integers.
class NpyHeaderParser {
 public:
  // `start`: the file offset of the header's first byte (10 in version 1, 12 in versions 2 and 3).
  NpyHeaderParser(std::string_view s, std::string where, std::uint64_t start)
      : s_(s), where_(std::move(where)), start_(start) {}

  void parse(std::string& descr, bool& fortran, std::vector<std::int64_t>& shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    expect('{');
    while (true) {
      skip();
      if (peek() == '}') break;
      const std::string key = string();
      expect(':');
      if (key == "descr") {
        skip();
        if (peek() == '[') fail("descr: a structured dtype (a list of fields) is not a matrix");
        descr = string();
        have_descr = true;
      } else if (key == "fortran_order") {
        fortran = boolean();
        have_fortran = true;
      } else if (key == "shape") {
        shape = tuple();
        have_shape = true;
      } else {
        fail("unexpected key " + quote(key));
      }
      skip();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      skip();
      if (peek() != '}') fail("expected ',' or '}'");
    }
    ++i_;
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\0')) ++i_;
    if (i_ != s_.size()) fail("unexpected text after the dict");
    if (!have_descr || !have_fortran || !have_shape) fail("needs the keys descr, fortran_order and shape");
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}: byte {}: header: {}", where_, start_ + i_, what));
  }
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  char peek() {
    if (i_ >= s_.size()) fail("ends early");
    return s_[i_];
  }
  void expect(char c) {
    skip();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string() {
    skip();
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    const std::size_t b = ++i_;
    while (i_ < s_.size() && s_[i_] != q) ++i_;
    if (i_ >= s_.size()) fail("unterminated string");
    return std::string(s_.substr(b, i_++ - b));
  }
  bool boolean() {
    skip();
    if (s_.substr(i_, 4) == "True") {
      i_ += 4;
      return true;
    }
    if (s_.substr(i_, 5) == "False") {
      i_ += 5;
      return false;
    }
    fail("fortran_order: expected True or False");
  }
  std::vector<std::int64_t> tuple() {
    expect('(');
    std::vector<std::int64_t> out;
    while (true) {
      skip();
      if (peek() == ')') break;
      std::uint64_t v = 0;
      const std::size_t b = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
        if (v > kMaxElements) fail("shape: a side above 2^48");
        v = v * 10 + static_cast<std::uint64_t>(s_[i_++] - '0');
      }
      if (i_ == b) fail("shape: expected a non-negative integer");
      if (s_.substr(i_, 1) == "L") ++i_;  // Python 2 longs
      out.push_back(static_cast<std::int64_t>(v));
      skip();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() != ')') fail("shape: expected ',' or ')'");
    }
    ++i_;
    if (out.size() > 32) fail("shape: more than 32 dimensions");
    return out;
  }

  std::string_view s_;
  std::string where_;
  std::uint64_t start_;
  std::size_t i_ = 0;
};

}  // namespace

TensorInfo parse_npy(std::span<const std::uint8_t> b, std::uint64_t file_size, const std::string& file) {
  static const std::uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (b.size() < 10 || std::memcmp(b.data(), magic, 6) != 0)
    throw Error(file + ": byte 0: magic: not a .npy file (it does not start with \\x93NUMPY)");
  const int major = b[6];
  if (major < 1 || major > 3) throw Error(fmt::format("{}: byte 6: version: unsupported version {}.{}", file, major, b[7]));
  std::uint64_t hl = 0, start = 0;
  if (major == 1) {
    hl = static_cast<std::uint64_t>(b[8]) | static_cast<std::uint64_t>(b[9]) << 8;
    start = 10;
  } else {
    if (b.size() < 12) throw Error(file + ": byte 8: header length: truncated");
    hl = static_cast<std::uint64_t>(b[8]) | static_cast<std::uint64_t>(b[9]) << 8 | static_cast<std::uint64_t>(b[10]) << 16 |
         static_cast<std::uint64_t>(b[11]) << 24;
    start = 12;
  }
  if (hl > kMaxNpyHeader) throw Error(fmt::format("{}: byte 8: header length: {} bytes, above 1 MiB", file, hl));
  if (start + hl > b.size() || start + hl > file_size)
    throw Error(fmt::format("{}: byte 8: header length: {} bytes, past the end of the file", file, hl));
  const std::string_view text(reinterpret_cast<const char*>(b.data() + start), hl);
  TensorInfo t;
  t.file = file;
  NpyHeaderParser(text, file, start).parse(t.dtype_name, t.fortran_order, t.shape);
  const std::string& d = t.dtype_name;
  if (d.size() < 3 || (d[0] != '<' && d[0] != '>' && d[0] != '|' && d[0] != '='))
    throw Error(file + ": header: descr " + quote(d) + " is not a numpy type string");
  std::uint64_t item = 0;
  for (std::size_t i = 2; i < d.size(); ++i) {
    if (d[i] < '0' || d[i] > '9' || item > 64) throw Error(file + ": header: descr " + quote(d) + " is not a numpy type string");
    item = item * 10 + static_cast<std::uint64_t>(d[i] - '0');
  }
  if (item == 0) throw Error(file + ": header: descr " + quote(d) + " has no item size");
  const char kind = d[1];
  if (d[0] == '>' && item > 1) throw Error(file + ": header: descr " + quote(d) + " is big-endian (only little-endian data is read)");
  t.item_bytes = item;
  // numpy's kind and size as safetensors names them (f8 -> F64, i1 -> I8, b1 -> BOOL, ...).
  const std::string bits = std::to_string(item * 8);
  t.safetensors_dtype = kind == 'f' ? "F" + bits : kind == 'i' ? "I" + bits : kind == 'u' ? "U" + bits
                        : kind == 'b' && item == 1 ? "BOOL" : "";
  if (safetensors_item_bytes(t.safetensors_dtype) != item) t.safetensors_dtype.clear();
  t.dtype = kind == 'f' && item == 2 ? DType::f16 : kind == 'f' && item == 4 ? DType::f32 : kind == 'i' && item == 1 ? DType::i8
                                                                                                                  : DType::other;
  const std::uint64_t elems = checked_elements(t.shape, file);
  t.offset = start + hl;
  t.bytes = elems * item;
  if (t.offset + t.bytes > file_size)
    throw Error(fmt::format("{}: byte {}: data: shape {} of {} needs {} bytes, the file has {} after the header", file, t.offset,
                            t.shape_string(), d, t.bytes, file_size - t.offset));
  if (t.offset + t.bytes < file_size)
    throw Error(fmt::format("{}: byte {}: data: {} trailing bytes after the {} of shape {}", file, t.offset + t.bytes,
                            file_size - t.offset - t.bytes, d, t.shape_string()));
  return t;
}

// ---- the open files -------------------------------------------------------------------------------

const TensorInfo& TensorFile::find(const std::string& name) const {
  auto names = [&] {
    std::string s;
    int n = 0;
    for (const auto& t : tensors_) {
      if (t.shape.size() != 2) continue;
      if (n++ == 5) return s + ", ...";
      s += (s.empty() ? "" : ", ") + t.name + " " + t.shape_string();
    }
    return s.empty() ? std::string("none is 2-D") : s;
  };
  if (name.empty()) {
    if (tensors_.size() == 1) return tensors_[0];
    const TensorInfo* only = nullptr;
    int two_d = 0;
    for (const auto& t : tensors_)
      if (t.shape.size() == 2) {
        only = &t;
        ++two_d;
      }
    if (two_d == 1) return *only;
    throw Error(fmt::format("{}: holds {} tensors ({} of them 2-D); name one as {}:NAME (2-D: {})", path_, tensors_.size(), two_d,
                            path_, names()));
  }
  for (const auto& t : tensors_)
    if (t.name == name) return t;
  throw Error(fmt::format("{}: no tensor {} (2-D tensors: {})", path_, quote(name), names()));
}

namespace {

class SafetensorsFile : public TensorFile {
 public:
  // Where a shard's bytes come from: its path (the index's folder joined with the shard's name) to
  // bytes that live as long as this object; a missing shard throws Error naming its path.
  using ShardSource = std::function<std::span<const std::uint8_t>(const std::string& path)>;

  explicit SafetensorsFile(const std::string& path) {
    path_ = path;
    read_header(shards_.emplace(path, map_shard(path)).first->second);
  }
  // A single file's bytes in memory (the fuzz targets).
  SafetensorsFile(std::span<const std::uint8_t> bytes, const std::string& name) {
    path_ = name;
    shards_.emplace(name, bytes);
    read_header(bytes);
  }
  // A sharded checkpoint: the index's weight_map names, for each tensor, the shard that holds it.
  // Shards are mapped from the index's folder.
  SafetensorsFile(const std::string& index_path, std::span<const std::uint8_t> index_bytes)
      : SafetensorsFile(index_path, index_bytes, [this](const std::string& p) { return map_shard(p); }) {}
  SafetensorsFile(const std::string& index_path, std::span<const std::uint8_t> index_bytes,
                  const ShardSource& open_shard) {
    path_ = index_path;
    if (index_bytes.size() > kMaxSafetensorsHeader)
      throw Error(index_path + ": a safetensors index above 100 MiB");
    using nlohmann::json;
    // The parser keeps the last of repeated keys; a weight_map that lists a tensor twice is refused,
    // as a safetensors header that does.
    std::string top, duplicate;
    std::set<std::string> names;
    const json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
      if (event != json::parse_event_t::key) return true;
      if (depth == 1)
        top = parsed.get<std::string>();
      else if (depth == 2 && top == "weight_map" && !names.insert(parsed.get<std::string>()).second &&
               duplicate.empty())
        duplicate = parsed.get<std::string>();
      return true;
    };
    json j;
    try {
      j = json::parse(index_bytes.begin(), index_bytes.end(), cb);
    } catch (const json::parse_error& e) {
      throw Error(fmt::format("{}: byte {}: not valid JSON", index_path, e.byte));
    } catch (const json::exception&) {
      throw Error(index_path + ": not valid JSON (a number out of range)");
    }
    const auto wm = j.find("weight_map");
    if (!j.is_object() || wm == j.end() || !wm->is_object())
      throw Error(index_path + ": not a safetensors index (no \"weight_map\" object)");
    if (!duplicate.empty())
      throw Error(index_path + ": weight_map: tensor " + quote(duplicate) + " is listed twice");
    const auto meta = j.find("metadata");
    if (meta != j.end() && meta->is_object())
      for (auto m = meta->begin(); m != meta->end(); ++m) metadata_[m.key()] = m->is_string() ? m->get<std::string>() : m->dump();
    const std::filesystem::path dir = std::filesystem::path(index_path).parent_path();
    std::map<std::string, std::string> where;  // tensor -> shard path
    for (auto e = wm->begin(); e != wm->end(); ++e) {
      if (!e->is_string()) throw Error(index_path + ": weight_map: the entry for " + quote(e.key()) + " is not a file name");
      const std::string shard = e->get<std::string>();
      if (shard.empty() || shard.find('/') != std::string::npos || shard == "." || shard == "..")
        throw Error(index_path + ": weight_map: " + quote(shard) + " is not a file name in the index's folder");
      const std::string p = (dir / shard).string();
      if (!shards_.count(p)) shards_.emplace(p, open_shard(p));
      where[e.key()] = p;
    }
    std::set<std::string> seen;
    for (const auto& [p, bytes] : shards_) {
      auto h = parse_safetensors(bytes, p);
      for (auto& t : h.tensors) {
        if (!seen.insert(t.name).second) throw Error(p + ": tensor " + quote(t.name) + " is also in another shard");
        tensors_.push_back(std::move(t));
      }
    }
    for (const auto& listed : where) {
      const bool found = std::any_of(tensors_.begin(), tensors_.end(),
                                     [&](const TensorInfo& t) { return t.name == listed.first && t.file == listed.second; });
      if (!found) throw Error(index_path + ": weight_map lists " + quote(listed.first) + " in " + listed.second + ", which does not hold it");
    }
  }
  std::span<const std::uint8_t> data(const TensorInfo& t) override {
    return shards_.at(t.file).subspan(t.offset, t.bytes);
  }
  void release(const TensorInfo& t) override {
    if (const auto m = mapped_.find(t.file); m != mapped_.end()) m->second->release(t.offset, t.bytes);
  }

 private:
  void read_header(std::span<const std::uint8_t> bytes) {
    auto h = parse_safetensors(bytes, path_);
    tensors_ = std::move(h.tensors);
    metadata_ = std::move(h.metadata);
  }
  std::span<const std::uint8_t> map_shard(const std::string& p) {
    return mapped_.emplace(p, std::make_unique<MappedFile>(p)).first->second->bytes();
  }

  std::map<std::string, std::span<const std::uint8_t>> shards_;  // every file's bytes, by path
  std::map<std::string, std::unique_ptr<MappedFile>> mapped_;    // the files mapped from disk
};

class NpyFile : public TensorFile {
 public:
  explicit NpyFile(const std::string& path) : file_(path) {
    path_ = path;
    tensors_.push_back(parse_npy(file_.bytes(), file_.bytes().size(), path));
  }
  std::span<const std::uint8_t> data(const TensorInfo& t) override { return file_.bytes().subspan(t.offset, t.bytes); }
  void release(const TensorInfo& t) override { file_.release(t.offset, t.bytes); }

 private:
  MappedFile file_;
};

// An .npz archive (a zip of .npy files, stored or deflated) over bytes in memory, through libzip:
// each member's header is read at open; its data is decompressed when asked for, one member at a
// time, within the memory budget.
class NpzFile : public TensorFile {
 public:
  NpzFile(std::span<const std::uint8_t> bytes, const std::string& path, const MemoryBudget& budget,
          std::unique_ptr<MappedFile> owner = nullptr)
      : owner_(std::move(owner)), budget_(budget) {
    path_ = path;
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
    if (!src) throw Error(path + ": cannot read the archive: " + zip_error_strerror(&err));
    zip_.reset(zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err));
    if (!zip_) {
      zip_source_free(src);
      const std::string what = zip_error_strerror(&err);
      zip_error_fini(&err);
      throw Error(path + ": not a valid .npz (zip) archive: " + what);
    }
    zip_error_fini(&err);
    const zip_int64_t n = zip_get_num_entries(zip_.get(), 0);
    std::set<std::string> names;
    for (zip_int64_t i = 0; i < n; ++i) {
      zip_stat_t st;
      if (zip_stat_index(zip_.get(), static_cast<zip_uint64_t>(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME) || !(st.valid & ZIP_STAT_SIZE))
        throw Error(fmt::format("{}: member {}: unreadable entry", path, i));
      std::string name = st.name;
      if (name.size() < 4 || name.substr(name.size() - 4) != ".npy") continue;
      name.resize(name.size() - 4);
      if (!names.insert(name).second) throw Error(path + ": member " + quote(name) + " is in the archive twice");
      const std::string where = path + ":" + name;
      // The header: at most its bound past the fixed part.
      const std::uint64_t head_bytes = std::min<std::uint64_t>(st.size, kMaxNpyHeader + 12);
      const auto head = read_member(static_cast<zip_uint64_t>(i), head_bytes, where);
      TensorInfo t = parse_npy(head, st.size, where);
      t.name = name;
      t.file = where;
      index_.push_back(static_cast<zip_uint64_t>(i));
      tensors_.push_back(std::move(t));
    }
  }
  std::span<const std::uint8_t> data(const TensorInfo& t) override {
    const std::size_t k = index_of(t);
    budget_.require(t.offset + t.bytes, t.label() + ": decompressing the member");
    std::lock_guard<std::mutex> lock(mu_);  // libzip's archive handle is not shared between threads
    auto& buf = loaded_[k];
    if (buf.empty()) buf = read_member(index_[k], t.offset + t.bytes, t.label());
    return std::span<const std::uint8_t>(buf).subspan(t.offset, t.bytes);
  }
  void release(const TensorInfo& t) override {
    std::lock_guard<std::mutex> lock(mu_);
    loaded_.erase(index_of(t));
  }

 private:
  std::vector<std::uint8_t> read_member(zip_uint64_t index, std::uint64_t n, const std::string& where) {
    zip_file_t* f = zip_fopen_index(zip_.get(), index, 0);
    if (!f) throw Error(where + ": cannot open the member: " + zip_strerror(zip_.get()));
    std::vector<std::uint8_t> out(static_cast<std::size_t>(n));
    std::uint64_t got = 0;
    while (got < n) {
      const zip_int64_t r = zip_fread(f, out.data() + got, n - got);
      if (r < 0) {
        const std::string what = zip_file_strerror(f);
        zip_fclose(f);
        throw Error(where + ": cannot decompress the member: " + what);
      }
      if (r == 0) break;
      got += static_cast<std::uint64_t>(r);
    }
    zip_fclose(f);
    if (got != n) throw Error(fmt::format("{}: the member holds {} bytes, the archive says at least {}", where, got, n));
    return out;
  }

  std::size_t index_of(const TensorInfo& t) const {
    const auto k = static_cast<std::size_t>(&t - tensors_.data());
    require(k < tensors_.size(), "npz: a tensor of another file");
    return k;
  }

  std::unique_ptr<MappedFile> owner_;
  MemoryBudget budget_;
  // Discarded (closed without writing) however the object ends, a throwing constructor included.
  struct Discard {
    void operator()(zip_t* z) const { zip_discard(z); }
  };
  std::unique_ptr<zip_t, Discard> zip_;
  std::vector<zip_uint64_t> index_;
  std::mutex mu_;
  std::map<std::size_t, std::vector<std::uint8_t>> loaded_;  // members being read, by tensor
};

enum class TensorFormat { safetensors, index, npy, npz, none };

TensorFormat sniff(std::span<const std::uint8_t> b, const std::string& path) {
  if (b.size() >= 6 && b[0] == 0x93 && std::memcmp(b.data() + 1, "NUMPY", 5) == 0) return TensorFormat::npy;
  if (b.size() >= 4 && std::memcmp(b.data(), "PK\x03\x04", 4) == 0) return TensorFormat::npz;
  if (b.size() >= 4 && std::memcmp(b.data(), "PK\x05\x06", 4) == 0) return TensorFormat::npz;  // empty archive
  if (b.size() >= 9 && b[8] == '{' && read_u64(b, 0) <= b.size() - 8) return TensorFormat::safetensors;
  const auto ends = [&](std::string_view s) { return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0; };
  if (ends(".json") && !b.empty() && b[0] == '{') return TensorFormat::index;
  return TensorFormat::none;
}

}  // namespace

std::unique_ptr<TensorFile> open_safetensors_bytes(std::span<const std::uint8_t> bytes, const std::string& file) {
  return std::make_unique<SafetensorsFile>(bytes, file);
}

std::unique_ptr<TensorFile> open_safetensors_index_bytes(
    std::span<const std::uint8_t> index_bytes, const std::string& index_path,
    const std::map<std::string, std::span<const std::uint8_t>>& shards) {
  return std::make_unique<SafetensorsFile>(index_path, index_bytes, [&](const std::string& p) {
    const auto s = shards.find(p);
    if (s == shards.end()) throw Error(p + ": cannot open for reading: No such file or directory");
    return s->second;
  });
}

std::unique_ptr<TensorFile> open_npz_bytes(std::span<const std::uint8_t> bytes, const std::string& file,
                                           const MemoryBudget& budget) {
  return std::make_unique<NpzFile>(bytes, file, budget);
}

std::unique_ptr<TensorFile> open_tensor_file(const std::string& path, const MemoryBudget& budget) {
  auto f = std::make_unique<MappedFile>(path);
  switch (sniff(f->bytes(), path)) {
    case TensorFormat::safetensors: return std::make_unique<SafetensorsFile>(path);
    case TensorFormat::npy: return std::make_unique<NpyFile>(path);
    case TensorFormat::npz: {
      const auto b = f->bytes();
      return std::make_unique<NpzFile>(b, path, budget, std::move(f));
    }
    case TensorFormat::index:
      return std::make_unique<SafetensorsFile>(path, f->bytes());
    case TensorFormat::none: break;
  }
  throw Error(path + ": not a tensor file (safetensors, safetensors index .json, .npy or .npz)");
}

bool is_tensor_file(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream in(path, std::ios::binary);
  std::vector<std::uint8_t> head(16, 0);
  in.read(reinterpret_cast<char*>(head.data()), 16);
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.size() >= 9 && head[8] == '{') {
    // safetensors: the header length must fit the file.
    return read_u64(head, 0) <= static_cast<std::uint64_t>(st.st_size) - 8;
  }
  const auto t = sniff(head, path);
  return t != TensorFormat::none && t != TensorFormat::safetensors;
}

TensorSpec split_tensor_spec(const std::string& arg) {
  struct stat st {};
  if (stat(arg.c_str(), &st) == 0) return {arg, ""};
  for (std::size_t p = arg.find(':'); p != std::string::npos; p = arg.find(':', p + 1)) {
    const std::string file = arg.substr(0, p);
    if (stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return {file, arg.substr(p + 1)};
  }
  return {arg, ""};
}

// ---- tensors as matrix rows ---------------------------------------------------------------------

std::pair<std::int64_t, std::int64_t> matrix_shape(const TensorInfo& t, bool transpose) {
  if (t.shape.size() != 2)
    throw Error(fmt::format("{}: shape {} is {}-D; a matrix needs 2 dimensions", t.label(), t.shape_string(), t.shape.size()));
  const std::int64_t rows = transpose ? t.shape[1] : t.shape[0], cols = transpose ? t.shape[0] : t.shape[1];
  if (cols > kMaxCols)
    throw Error(fmt::format("{}: {} columns exceed 2^31 - 1 (column indices are 32-bit){}", t.label(), cols,
                            transpose ? "" : "; --transpose reads it as [in, out]"));
  if (rows > kMaxCols) throw Error(fmt::format("{}: {} rows exceed 2^31 - 1", t.label(), rows));
  return {rows, cols};
}

namespace {

template <class S>
S load(const std::uint8_t* p) {
  S v;
  std::memcpy(&v, p, sizeof(S));
  return v;
}

// One element of dtype D (its storage type S) as T.
template <class S, class T>
struct Convert {
  const TensorInfo& t;
  T operator()(S s, std::int64_t r, std::int64_t c) const {
    if constexpr (std::is_same_v<S, T>) {
      return s;
    } else if constexpr (std::is_same_v<T, std::int8_t>) {
      const float f = to_float(s);
      if (!(f == std::nearbyint(f) && f >= -128.0f && f <= 127.0f))
        throw Error(fmt::format("{}: element ({}, {}) = {} is not a whole number in [-128, 127]: int8 holds only those", t.label(), r, c, f));
      return static_cast<std::int8_t>(f);
    } else {
      // A finite element the narrower T cannot hold is refused, as the MatrixMarket reader refuses
      // one: stored as inf it would be another number.
      const float f = to_float(s);
      const T v = from_float<T>(f);
      if (std::isfinite(f) && std::isinf(to_float(v)))
        throw Error(fmt::format(
            "{}: element ({}, {}) = {} is beyond the range of {} (it would become inf); read it as "
            "fp32",
            t.label(), r, c, f, to_string(ValueTypeOf<T>::value)));
      return v;
    }
  }
};

template <class S, class T>
SparseRows<T> rows_of(const TensorInfo& t, std::span<const std::uint8_t> data, bool transpose, const MemoryBudget& budget) {
  const auto shape = matrix_shape(t, transpose);
  const std::int64_t rows = shape.first, cols = shape.second;
  require(data.size() == t.bytes && t.item_bytes == sizeof(S), t.label() + ": data size differs from its header");
  const Convert<S, T> conv{t};
  const std::uint8_t* base = data.data();
  // Memory order: element (r, c) of the matrix is at r * cols + c when rows are contiguous,
  // c * rows + r otherwise (a Fortran-order array, or a transposed C-order one).
  const bool row_major = t.fortran_order == transpose;
  SparseRows<T> m;
  m.cols = cols;
  // Checked before the counts are allocated: a tensor of no elements can still declare 2^31 rows.
  budget.require(sat_mul(static_cast<std::uint64_t>(rows) + 1, 16), t.label() + ": the row pointers of " + std::to_string(rows) + " rows");
  std::vector<std::int64_t> count(static_cast<std::size_t>(rows), 0);
  const auto at = [&](std::int64_t r, std::int64_t c) {
    const std::int64_t i = row_major ? r * cols + c : c * rows + r;
    return load<S>(base + static_cast<std::size_t>(i) * sizeof(S));
  };
  // Pass 1: the nonzeros of each row, in memory order.
  std::uint64_t nnz = 0;
  if (row_major) {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) count[r] += !is_zero(conv(at(r, c), r, c));
  } else {
    for (std::int64_t c = 0; c < cols; ++c)
      for (std::int64_t r = 0; r < rows; ++r) count[r] += !is_zero(conv(at(r, c), r, c));
  }
  for (const auto k : count) nnz += static_cast<std::uint64_t>(k);
  budget.require(sat_add(sat_mul(nnz, sizeof(std::int32_t) + sizeof(T)), sat_mul(static_cast<std::uint64_t>(rows) + 1, 16)),
                 fmt::format("{}: {} x {} with {} nonzeros", t.label(), rows, cols, nnz));
  // Pass 2: store them, rows in order, columns increasing.
  m.row_ptr.resize(static_cast<std::size_t>(rows) + 1);
  m.row_ptr[0] = 0;
  for (std::int64_t r = 0; r < rows; ++r) m.row_ptr[r + 1] = m.row_ptr[r] + count[r];
  m.rows = rows;
  m.col.resize(static_cast<std::size_t>(nnz));
  m.val.resize(static_cast<std::size_t>(nnz));
  std::vector<std::int64_t> next(m.row_ptr.begin(), m.row_ptr.end() - 1);
  const auto put = [&](std::int64_t r, std::int64_t c) {
    const T v = conv(at(r, c), r, c);
    if (is_zero(v)) return;
    const auto k = static_cast<std::size_t>(next[r]++);
    m.col[k] = static_cast<std::int32_t>(c);
    m.val[k] = v;
  };
  if (row_major) {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) put(r, c);
  } else {
    for (std::int64_t c = 0; c < cols; ++c)
      for (std::int64_t r = 0; r < rows; ++r) put(r, c);
  }
  return m;
}

}  // namespace

float element_float(const TensorInfo& t, std::span<const std::uint8_t> data, std::uint64_t i) {
  const std::uint8_t* p = data.data() + i * t.item_bytes;
  switch (t.dtype) {
    case DType::f16: return to_float(load<half>(p));
    case DType::bf16: return to_float(load<bfloat16>(p));
    case DType::f32: return load<float>(p);
    case DType::i8: return static_cast<float>(load<std::int8_t>(p));
    case DType::other: break;
  }
  throw Error(t.label() + ": dtype " + quote(t.dtype_name) + " is not one a matrix is read from (F16, BF16, F32, I8)");
}

template <class T>
SparseRows<T> tensor_rows(const TensorInfo& t, std::span<const std::uint8_t> data, bool transpose, const MemoryBudget& budget) {
  switch (t.dtype) {
    case DType::f16: return rows_of<half, T>(t, data, transpose, budget);
    case DType::bf16: return rows_of<bfloat16, T>(t, data, transpose, budget);
    case DType::f32: return rows_of<float, T>(t, data, transpose, budget);
    case DType::i8: return rows_of<std::int8_t, T>(t, data, transpose, budget);
    case DType::other: break;
  }
  throw Error(t.label() + ": dtype " + quote(t.dtype_name) + " is not one a matrix is read from (F16, BF16, F32, I8)");
}

template SparseRows<half> tensor_rows(const TensorInfo&, std::span<const std::uint8_t>, bool, const MemoryBudget&);
template SparseRows<bfloat16> tensor_rows(const TensorInfo&, std::span<const std::uint8_t>, bool, const MemoryBudget&);
template SparseRows<float> tensor_rows(const TensorInfo&, std::span<const std::uint8_t>, bool, const MemoryBudget&);
template SparseRows<std::int8_t> tensor_rows(const TensorInfo&, std::span<const std::uint8_t>, bool, const MemoryBudget&);

// ---- writing safetensors ------------------------------------------------------------------------

void write_safetensors(const std::string& path, const std::vector<TensorOut>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json h;
  if (!metadata.empty()) {
    h["__metadata__"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) h["__metadata__"][k] = v;
  }
  std::uint64_t at = 0;
  for (const auto& t : tensors) {
    require(safetensors_item_bytes(t.dtype) > 0, "write_safetensors: unknown dtype " + t.dtype);
    std::uint64_t elems = 1;
    for (const auto d : t.shape) elems = sat_mul(elems, static_cast<std::uint64_t>(d));
    require(elems * safetensors_item_bytes(t.dtype) == t.bytes, "write_safetensors: " + t.name + ": size differs from its shape");
    require(!h.contains(t.name), "write_safetensors: tensor " + t.name + " given twice");
    h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {at, at + t.bytes}}};
    at += t.bytes;
  }
  std::string text = h.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // data starts 8-byte aligned
  OutputFile file(path);
  std::ostream& out = file.stream();
  const std::uint64_t n = text.size();
  out.write(reinterpret_cast<const char*>(&n), 8);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (const auto& t : tensors) {
    const auto before = out.tellp();
    t.write(out);
    require(static_cast<std::uint64_t>(out.tellp() - before) == t.bytes,
            "write_safetensors: " + t.name + ": wrote a different number of bytes than declared");
  }
  file.commit();
}

}  // namespace warpsparse::io
