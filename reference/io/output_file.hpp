// Output files written whole or not at all.
#pragma once
#include <cstdint>
#include <fstream>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

namespace warpsparse::io {

// A file written under a temporary name beside it (PATH.partial) and renamed over PATH by commit().
// Until then PATH is untouched: a failed or interrupted write leaves no truncated file, and an
// output that is also an input (`prune X X`: the tensors are read from X's mapping while the output
// is written) keeps the old file whole until the new one is. Destroyed uncommitted, it removes the
// partial file. PATH that exists and is not a regular file (a FIFO, /dev/stdout) is written in place;
// a link's target is what is replaced. Messages name PATH.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return f_; }
  void write(std::span<const std::uint8_t> bytes);
  // Closes the file and puts it at PATH; throws when any write failed (the partial file is removed).
  void commit();

 private:
  std::string path_, final_, target_;  // as given; the file it names (through a link); written
  bool replace_ = false, committed_ = false;
  std::ofstream f_;
};

// `text` as the whole of the file at `path`, through an OutputFile; throws Error naming the path.
void write_file(const std::string& path, std::string_view text);

}  // namespace warpsparse::io
