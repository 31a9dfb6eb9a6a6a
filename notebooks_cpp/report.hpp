// A notebook's output: one self-contained HTML report (figures inlined as base64 PNG, with the
// SVG beside it on disk) and a Markdown copy that links the same figures. Figures are drawn by
// gnuplot (svg and pngcairo terminals) from data files written next to them, so every figure can
// be redrawn by hand from <slug>/<figure>.gp.
#pragma once
#include <string>
#include <vector>

namespace warpsparse::notebooks {

struct Series {
  std::string title;
  std::vector<double> x, y;
  std::vector<double> ylo, yhi;  // error bars (style "errorbars") when non-empty
  std::string style = "lines";   // gnuplot "with" clause: lines, linespoints, points, errorbars
  std::string extra;             // appended to the plot clause (e.g. "dt 2 lw 2", "pt 7 ps 0.6")
};

struct Plot {
  std::string name;  // file stem
  std::string title, xlabel, ylabel;
  bool logx = false, logy = false;
  std::string xrange, yrange;  // e.g. "[0:1]"; empty: automatic
  std::string key = "top left";
  std::vector<std::string> extra;  // further gnuplot commands before plot
  std::vector<Series> series;
  // A multiplot when non-empty: `panels` are drawn in a grid of `layout` ("rows,cols"; empty: near
  // square) under `title`; this plot's own series, labels and key are then unused.
  std::vector<Plot> panels;
  std::string layout;
  int width = 960, height = 600;  // pixels (PNG) and points (SVG)
};

class Report {
 public:
  Report(std::string slug, std::string title);
  void heading(const std::string& text);
  void para(const std::string& text);  // plain text; *emphasis* and `code` are left as typed
  void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
             const std::string& caption = "");
  void figure(const Plot& plot, const std::string& caption);
  void code(const std::string& text);
  // Writes <dir>/<slug>.html, <dir>/<slug>.md and <dir>/<slug>/ (figures, data); returns the HTML path.
  std::string write(const std::string& dir);

 private:
  struct Block {
    enum Kind { heading, para, table, figure, code } kind;
    std::string text;
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    Plot plot;
  };
  std::string slug_, title_;
  std::vector<Block> blocks_;
};

bool gnuplot_available();

}  // namespace warpsparse::notebooks
