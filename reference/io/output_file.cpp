#include "reference/io/output_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "reference/common/error.hpp"
#include "reference/io/input.hpp"

namespace warpsparse::io {

namespace fs = std::filesystem;

OutputFile::OutputFile(const std::string& path) : path_(path), final_(path) {
  require_file_name(path);
  std::error_code ec;
  // Through a link the file it names is replaced, as a write in place would change it.
  if (fs::is_symlink(path, ec)) {
    const fs::path real = fs::canonical(path, ec);
    if (!ec) final_ = real.string();
  }
  replace_ = !fs::exists(final_, ec) || fs::is_regular_file(final_, ec);
  target_ = replace_ ? final_ + ".partial" : final_;
  f_.open(target_, std::ios::binary | std::ios::trunc);
  if (!f_) throw Error(fmt::format("{}: cannot open for writing", path_));
}

OutputFile::~OutputFile() {
  if (committed_ || !replace_) return;
  f_.close();
  std::error_code ignored;
  fs::remove(target_, ignored);
}

void OutputFile::write(std::span<const std::uint8_t> bytes) {
  f_.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void OutputFile::commit() {
  f_.close();
  if (!f_) throw Error(fmt::format("{}: write failed", path_));
  if (replace_) {
    std::error_code ec;
    fs::rename(target_, final_, ec);
    if (ec) throw Error(fmt::format("{}: cannot replace it with {}: {}", path_, target_, ec.message()));
  }
  committed_ = true;
}

void write_file(const std::string& path, std::string_view text) {
  OutputFile f(path);
  f.stream() << text;
  f.commit();
}

}  // namespace warpsparse::io
