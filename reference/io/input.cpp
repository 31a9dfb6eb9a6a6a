#include "reference/io/input.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iostream>

#include "reference/common/error.hpp"

namespace warpsparse::io {

namespace {

// Serves a prefix already read from a stream, then the rest of that stream.
class PrefixBuf : public std::streambuf {
 public:
  PrefixBuf(std::string prefix, std::unique_ptr<std::istream> rest) : prefix_(std::move(prefix)), rest_(std::move(rest)) {
    setg(prefix_.data(), prefix_.data(), prefix_.data() + prefix_.size());
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    rest_->read(buf_, sizeof buf_);
    const std::streamsize n = rest_->gcount();
    if (n <= 0) {
      if (rest_->bad()) throw Error("read error");
      return traits_type::eof();
    }
    setg(buf_, buf_, buf_ + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::string prefix_;
  std::unique_ptr<std::istream> rest_;
  char buf_[1 << 16];
};

// An istream that owns its streambuf.
class OwningStream : public std::istream {
 public:
  explicit OwningStream(std::unique_ptr<std::streambuf> buf) : std::istream(buf.get()), buf_(std::move(buf)) {}

 private:
  std::unique_ptr<std::streambuf> buf_;
};

}  // namespace

void require_file_name(const std::string& path) {
  if (path.empty()) throw Error("an empty file name");
  if (const auto nul = path.find('\0'); nul != std::string::npos)
    throw Error(path.substr(0, nul) + "...: the file name has a NUL byte at character " +
                std::to_string(nul));
}

Input open_input(const std::string& path) {
  require_file_name(path);
  Input in;
  in.name = path;
  if (path == "-") {
    in.name = "<stdin>";
    in.stream = std::make_unique<std::istream>(std::cin.rdbuf());
    return in;
  }
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw Error(path + ": cannot open for reading: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory, not a file");
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) throw Error(path + ": is a device, not a file");
  auto f = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*f) throw Error(path + ": cannot open for reading");
  if (S_ISREG(st.st_mode)) in.size = static_cast<std::uint64_t>(st.st_size);
  in.stream = std::move(f);
  return in;
}

InputFormat sniff_format(Input& in) {
  // A MACKO or EC file starts with its 8-byte magic; a MatrixMarket file with its banner, after any
  // blank space.
  std::string prefix;
  char c = 0;
  while (prefix.size() < 64 && in.stream->get(c)) {
    prefix += c;
    if (prefix.size() >= 8 && (std::memcmp(prefix.data(), "WSMACKO", 8) == 0 || std::memcmp(prefix.data(), "WSECCSR", 8) == 0))
      break;
    const auto first = prefix.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && prefix.size() - first >= 14) break;
  }
  if (in.stream->bad()) throw Error(in.name + ": read error");
  in.stream = std::make_unique<OwningStream>(std::make_unique<PrefixBuf>(prefix, std::move(in.stream)));
  if (prefix.size() >= 8 && std::memcmp(prefix.data(), "WSMACKO", 8) == 0) return InputFormat::macko;
  if (prefix.size() >= 8 && std::memcmp(prefix.data(), "WSECCSR", 8) == 0) return InputFormat::ec;
  const auto first = prefix.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && prefix.size() - first >= 14) {
    std::string banner = prefix.substr(first, 14);
    std::transform(banner.begin(), banner.end(), banner.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
    if (banner == "%%matrixmarket") return InputFormat::matrix_market;
  }
  return InputFormat::unknown;
}

}  // namespace warpsparse::io
