// A notebook's output: one self-contained HTML report (figures inlined as base64 PNG, with the
// SVG beside it on disk) and a Markdown copy that links the same figures. Figures are drawn by
// gnuplot (svg and pngcairo terminals) from data files written next to them, so every figure can
// be redrawn by hand from <slug>/<figure>.gp.
#pragma once
#include <string>
#include <vector>

namespace warpsparse::notebooks {

struct Series {
  std::string title;             // empty: not in the key (an error bar set drawn beside its line)
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
  // Inside the plot ("top left", ...) or below it ("below"): a key outside to the right squeezes the
  // plot, so render refuses it. Each panel holds at most kMaxSeries titled series, told apart by
  // the palette's colours and dash types.
  std::string key = "top left";
  std::vector<std::string> extra;  // further gnuplot commands before plot
  std::vector<Series> series;
  // A multiplot when non-empty: `panels` are drawn in a grid of `layout` ("rows,cols"; empty: near
  // square) under `title`; this plot's own series, labels and key are then unused.
  std::vector<Plot> panels;
  std::string layout;
  int width = 960, height = 600;  // pixels (PNG) and points (SVG)
};

inline constexpr int kMaxSeries = 8;

class Report {
 public:
  Report(std::string slug, std::string title);
  // The question the page answers and a one-paragraph answer with the key numbers: shown first, and
  // carried into the index (through <slug>.json) as the page's headline.
  void lead(const std::string& question, const std::string& answer);
  // The figure that shows the answer at a glance: drawn right after the lead, wherever the notebook
  // computes it.
  void main_figure(const Plot& plot, const std::string& caption);
  void heading(const std::string& text);
  void para(const std::string& text);  // plain text; *emphasis* and `code` are left as typed
  // Every table is also written to <slug>/<csv_name>.csv (default: table_<n>) and linked; a large
  // one is shown as a summary, its rows kept by data() below.
  void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
             const std::string& caption = "", const std::string& csv_name = "");
  // A table kept as <slug>/<csv_name>.csv only, linked from a line that describes it: the full
  // data behind a summary table shown on the page.
  void data(const std::string& csv_name, const std::vector<std::string>& header,
            const std::vector<std::vector<std::string>>& rows, const std::string& description);
  void figure(const Plot& plot, const std::string& caption);
  void code(const std::string& text);
  // Writes <dir>/<slug>.html, <dir>/<slug>.md, <dir>/<slug>.json (title, question, answer) and
  // <dir>/<slug>/ (figures, data, tables as CSV); returns the HTML path.
  std::string write(const std::string& dir);

 private:
  struct Block {
    enum Kind { heading, para, table, data, figure, code } kind;
    std::string text;
    std::string csv;
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    Plot plot;
  };
  std::string slug_, title_, question_, answer_;
  std::vector<Block> blocks_;
  std::vector<Block> main_;  // the main figure, if any
};

bool gnuplot_available();

}  // namespace warpsparse::notebooks
