#include "notebooks_cpp/report.hpp"

#include <fmt/core.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "reference/common/error.hpp"
#include "reference/io/output_file.hpp"

namespace warpsparse::notebooks {

namespace fs = std::filesystem;

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (const char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

// Cells that report a failed check are shown in the page's alarm colour.
bool marks_failure(const std::string& cell) {
  for (const char* w : {"DISAGREES", "FAIL", "MISS", "below target"})
    if (cell.find(w) != std::string::npos) return true;
  return false;
}

std::string html_escape(const std::string& s) {
  std::string o;
  for (const char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

// `code` spans become <code>, the rest is escaped.
std::string inline_html(const std::string& s) {
  std::string o;
  bool in_code = false;
  std::string cur;
  for (const char c : s) {
    if (c == '`') {
      o += in_code ? "<code>" + html_escape(cur) + "</code>" : html_escape(cur);
      cur.clear();
      in_code = !in_code;
    } else {
      cur += c;
    }
  }
  o += html_escape(cur);
  return o;
}

std::string base64(const std::string& bytes) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string o;
  std::size_t i = 0;
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (b[i] << 16) | (b[i + 1] << 8) | b[i + 2];
    o += k[v >> 18 & 63];
    o += k[v >> 12 & 63];
    o += k[v >> 6 & 63];
    o += k[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = b[i] << 16;
    o += k[v >> 18 & 63];
    o += k[v >> 12 & 63];
    o += "==";
  } else if (i + 2 == bytes.size()) {
    const unsigned v = (b[i] << 16) | (b[i + 1] << 8);
    o += k[v >> 18 & 63];
    o += k[v >> 12 & 63];
    o += k[v >> 6 & 63];
    o += '=';
  }
  return o;
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string gp_quote(const std::string& s) {
  std::string o = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}

// Eight colours a reader tells apart, colour-blind safe (Okabe and Ito's palette, black and grey for
// the last two): gnuplot's default cycle repeats similar hues.
constexpr const char* kPalette[kMaxSeries] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                              "#E69F00", "#56B4E9", "#000000", "#7F7F7F"};

// The lower end of a log axis: the range's own when it names one, else half the smallest positive
// value plotted. Zeros and negative lower error bars are drawn there, marked, instead of vanishing.
double log_floor(const Plot& p) {
  if (p.yrange.size() > 2 && p.yrange.front() == '[') {
    const double lo = std::strtod(p.yrange.c_str() + 1, nullptr);
    if (lo > 0) return lo;
  }
  double m = INFINITY;
  for (const auto& s : p.series)
    for (std::size_t j = 0; j < s.y.size(); ++j) {
      if (s.y[j] > 0) m = std::min(m, s.y[j]);
      if (!s.ylo.empty() && s.ylo[j] > 0) m = std::min(m, s.ylo[j]);
    }
  return std::isfinite(m) ? m / 2 : 1e-3;
}

// The settings and plot command of one panel; its data files are written into dir as <stem>_<i>.dat.
// The titles of the series with zeros on a log axis are appended to `zeros_of` (for the caption: a
// series of zeros only draws no line of its own, and a key entry naming them all would not fit).
std::string panel_body(const Plot& p, const std::string& stem, const fs::path& dir, std::string& zeros_of) {
  int titled = 0;
  for (const auto& s : p.series) titled += !s.title.empty();
  require(titled <= kMaxSeries, fmt::format("figure '{}' has {} series in its key; a reader tells apart at most {}: split it",
                                            p.title, titled, kMaxSeries));
  require(p.key.find("outside") == std::string::npos,
          fmt::format("figure '{}': key '{}' outside the plot squeezes it; put it inside or 'below'", p.title, p.key));
  const double floor = p.logy ? log_floor(p) : 0.0;
  std::ostringstream plots;
  std::ofstream zeros;
  const std::string zero_data = stem + "_zero.dat";

  for (std::size_t i = 0; i < p.series.size(); ++i) {
    const Series& s = p.series[i];
    const std::string data = fmt::format("{}_{}.dat", stem, i);
    std::ofstream f(dir / data);
    f << "# x y" << (s.ylo.empty() ? "" : " ylo yhi") << "\n";
    for (std::size_t j = 0; j < s.x.size(); ++j) {
      if (!std::isfinite(s.x[j]) || !std::isfinite(s.y[j])) continue;
      if (p.logy && s.y[j] <= 0) {
        if (!zeros.is_open()) zeros.open(dir / zero_data);
        zeros << fmt::format("{:.10g} {:.10g}\n", s.x[j], floor);
        const std::string who = s.title + (p.title.empty() ? "" : " (" + p.title + ")");
        if (!s.title.empty() && zeros_of.find(who) == std::string::npos) zeros_of += (zeros_of.empty() ? "" : ", ") + who;
        continue;
      }
      f << fmt::format("{:.10g} {:.10g}", s.x[j], s.y[j]);
      if (!s.ylo.empty()) f << fmt::format(" {:.10g} {:.10g}", p.logy ? std::max(s.ylo[j], floor) : s.ylo[j], s.yhi[j]);
      f << "\n";
    }
    const std::string using_ = s.style == "errorbars" ? "1:2:3:4" : "1:2";
    plots << (i ? ", \\\n     " : "plot ") << gp_quote(data) << " using " << using_ << " with "
          << (s.style == "errorbars" ? "yerrorbars" : s.style)
          << (s.title.empty() ? std::string(" notitle") : " title " + gp_quote(s.title))
          << (s.extra.empty() ? "" : " " + s.extra);
  }
  if (zeros.is_open())
    plots << ", \\\n     " << gp_quote(zero_data)
          << " using 1:2 with points pt 10 ps 1.6 lc rgb '#444444' title 'zero (at the axis floor)'";
  std::ostringstream body;
  for (int i = 0; i < kMaxSeries; ++i)
    body << fmt::format("set linetype {} lc rgb '{}' lw 2 pt {}\n", i + 1, kPalette[i], 5 + 2 * (i % 4));
  body << "set title " << gp_quote(p.title) << "\n";
  body << "set xlabel " << gp_quote(p.xlabel) << "\nset ylabel " << gp_quote(p.ylabel) << "\n";
  body << "set grid lc rgb '#dddddd'\n";
  if (p.key == "off") body << "unset key\n";
  else if (p.key.rfind("below", 0) == 0) body << "set key " << p.key << " horizontal maxrows 3 box opaque\n";
  else body << "set key " << p.key << " box opaque\nset key Left reverse samplen 2.5\n";
  body << "set border lw 1.2\nset tics nomirror\nset mxtics\nset mytics\n";
  if (p.logx) body << "set logscale x\nset format x '%g'\n";
  if (p.logy) body << "set logscale y\nset format y '%g'\n";
  if (!p.xrange.empty()) body << "set xrange " << p.xrange << "\n";
  if (!p.yrange.empty()) body << "set yrange " << p.yrange << "\n";
  for (const auto& e : p.extra) body << e << "\n";
  body << plots.str() << "\n";
  return body.str();
}

// Writes the data and script of a plot into dir and runs gnuplot for both terminals.
// Returns false (and leaves the script for inspection) when gnuplot is missing or fails.
bool render(const Plot& p, const fs::path& dir, std::string& zeros_of) {
  fs::create_directories(dir);
  std::string body;
  if (p.panels.empty()) {
    body = panel_body(p, p.name, dir, zeros_of);
  } else {
    std::string layout = p.layout;
    if (layout.empty()) {
      const int n = static_cast<int>(p.panels.size());
      const int cols = static_cast<int>(std::ceil(std::sqrt(double(n))));
      layout = fmt::format("{},{}", (n + cols - 1) / cols, cols);
    }
    body = "set multiplot layout " + layout + " title " + gp_quote(p.title) + "\n";
    for (std::size_t i = 0; i < p.panels.size(); ++i) {
      // reset keeps the terminal and output; each panel starts from gnuplot's defaults.
      body += "reset\n" + panel_body(p.panels[i], fmt::format("{}_p{}", p.name, i), dir, zeros_of);
    }
    body += "unset multiplot\n";
  }
  const fs::path script = dir / (p.name + ".gp");
  {
    // The body is written once per terminal (replot cannot redraw a multiplot).
    std::ofstream f(script);
    f << "# " << p.title << "\n";
    f << fmt::format("set terminal svg size {},{} dynamic noenhanced font 'Helvetica,13' background rgb 'white'\n",
                     p.width, p.height);
    f << "set output " << gp_quote(p.name + ".svg") << "\n";
    f << body;
    f << "unset output\n";
    f << fmt::format("set terminal pngcairo size {},{} noenhanced font 'Helvetica,12' background rgb 'white'\n",
                     p.width, p.height);
    f << "set output " << gp_quote(p.name + ".png") << "\n";
    f << body;
    f << "unset output\n";
  }
  if (!gnuplot_available()) return false;
  // Run from the figure directory: the script names its data and outputs relative to it.
  const std::string cmd = "cd " + gp_quote(dir.string()) + " && gnuplot " + gp_quote(p.name + ".gp") + " 2> " +
                          gp_quote(p.name + ".log");
  return std::system(cmd.c_str()) == 0 && fs::exists(dir / (p.name + ".png"));
}

constexpr const char* kCss = R"(body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1060px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
.tw{max-width:100%;overflow-x:auto}table{border-collapse:collapse;margin:1em 0;font-size:0.9em}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f2f2f2}td:first-child,th:first-child{text-align:left}caption{caption-side:bottom;font-size:0.85em;color:#555;padding-top:4px}
figure{margin:1.5em 0}figure img{max-width:100%;border:1px solid #eee}figcaption{font-size:0.9em;color:#444}
code,pre{background:#f6f6f6;font-family:ui-monospace,Menlo,Consolas,monospace}pre{padding:0.6em;white-space:pre-wrap;overflow-wrap:anywhere}
.lead{border-left:4px solid #0072B2;background:#f4f8fb;padding:0.6em 1em;margin:1em 0}.lead p{margin:0.3em 0}
.bad{color:#b00020;font-weight:600}.note{color:#555;font-size:0.9em}.good{color:#1b5e20})";

}  // namespace

bool gnuplot_available() {
  static const bool ok = std::system("gnuplot --version > /dev/null 2>&1") == 0;
  return ok;
}

Report::Report(std::string slug, std::string title) : slug_(std::move(slug)), title_(std::move(title)) {}

void Report::lead(const std::string& question, const std::string& answer) {
  question_ = question;
  answer_ = answer;
}
void Report::main_figure(const Plot& plot, const std::string& caption) {
  main_ = {{Block::figure, caption, {}, {}, {}, plot}};
}
void Report::heading(const std::string& t) { blocks_.push_back({Block::heading, t, {}, {}, {}, {}}); }
void Report::para(const std::string& t) { blocks_.push_back({Block::para, t, {}, {}, {}, {}}); }
void Report::code(const std::string& t) { blocks_.push_back({Block::code, t, {}, {}, {}, {}}); }
void Report::table(const std::vector<std::string>& h, const std::vector<std::vector<std::string>>& rows,
                   const std::string& caption, const std::string& csv_name) {
  blocks_.push_back({Block::table, caption, csv_name, h, rows, {}});
}
void Report::data(const std::string& csv_name, const std::vector<std::string>& h,
                  const std::vector<std::vector<std::string>>& rows, const std::string& description) {
  blocks_.push_back({Block::data, description, csv_name, h, rows, {}});
}
void Report::figure(const Plot& plot, const std::string& caption) {
  blocks_.push_back({Block::figure, caption, {}, {}, {}, plot});
}

std::string Report::write(const std::string& dir_str) {
  const fs::path dir(dir_str);
  const fs::path fig_dir = dir / slug_;
  fs::create_directories(fig_dir);
  std::ostringstream html, md;
  html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << html_escape(title_)
       << "</title>\n<style>" << kCss << "</style></head><body>\n<h1>" << html_escape(title_) << "</h1>\n";
  md << "# " << title_ << "\n\n";
  require(!question_.empty(), "report " + slug_ + " has no lead: every page opens with its question and answer");
  html << "<div class=\"lead\"><p><b>Question.</b> " << inline_html(question_) << "</p><p><b>Answer.</b> "
       << inline_html(answer_) << "</p></div>\n";
  md << "**Question.** " << question_ << "\n\n**Answer.** " << answer_ << "\n\n";
  int fig_no = 0, table_no = 0;
  std::vector<Block> blocks = main_;
  blocks.insert(blocks.end(), blocks_.begin(), blocks_.end());
  for (const auto& b : blocks) {
    switch (b.kind) {
      case Block::heading:
        html << "<h2>" << html_escape(b.text) << "</h2>\n";
        md << "## " << b.text << "\n\n";
        break;
      case Block::para:
        html << "<p>" << inline_html(b.text) << "</p>\n";
        md << b.text << "\n\n";
        break;
      case Block::code:
        html << "<pre>" << html_escape(b.text) << "</pre>\n";
        md << "```\n" << b.text << "\n```\n\n";
        break;
      case Block::data:
      case Block::table: {
        ++table_no;
        const std::string csv = slug_ + "/" + (b.csv.empty() ? fmt::format("table_{}", table_no) : b.csv) + ".csv";
        {
          std::ofstream f(dir / csv);
          for (std::size_t i = 0; i < b.header.size(); ++i) f << (i ? "," : "") << csv_field(b.header[i]);
          f << "\n";
          for (const auto& r : b.rows) {
            for (std::size_t i = 0; i < r.size(); ++i) f << (i ? "," : "") << csv_field(r[i]);
            f << "\n";
          }
        }
        if (b.kind == Block::data) {
          html << "<p class=\"note\">" << inline_html(b.text) << " (" << b.rows.size() << " rows: <a href=\""
               << html_escape(csv) << "\">" << html_escape(csv) << "</a>)</p>\n";
          md << "*" << b.text << " (" << b.rows.size() << " rows: [" << csv << "](" << csv << "))*\n\n";
          break;
        }
        html << "<div class=\"tw\"><table>\n<tr>";
        for (const auto& h : b.header) html << "<th>" << html_escape(h) << "</th>";
        html << "</tr>\n";
        md << "|";
        for (const auto& h : b.header) md << " " << h << " |";
        md << "\n|";
        for (std::size_t i = 0; i < b.header.size(); ++i) md << (i == 0 ? " :--- |" : " ---: |");
        md << "\n";
        for (const auto& r : b.rows) {
          html << "<tr>";
          md << "|";
          for (const auto& c : r) {
            const bool bad = marks_failure(c);
            html << "<td" << (bad ? " class=\"bad\"" : "") << ">" << html_escape(c) << "</td>";
            md << " " << c << " |";
          }
          html << "</tr>\n";
          md << "\n";
        }
        html << "<caption>" << inline_html(b.text) << (b.text.empty() ? "" : " ") << "(<a href=\"" << html_escape(csv)
             << "\">as CSV</a>)</caption>\n";
        html << "</table></div>\n";
        md << "\n*" << b.text << (b.text.empty() ? "" : " ") << "([as CSV](" << csv << "))*\n";
        md << "\n";
        break;
      }
      case Block::figure: {
        ++fig_no;
        std::string zeros_of;
        const bool ok = render(b.plot, fig_dir, zeros_of);
        const std::string caption =
            b.text + (zeros_of.empty() ? "" : " Zero values, drawn at the log axis's floor (open triangles): " + zeros_of + ".");
        const std::string png = slug_ + "/" + b.plot.name + ".png", svg = slug_ + "/" + b.plot.name + ".svg";
        html << "<figure>";
        if (ok) {
          html << "<img alt=\"" << html_escape(b.plot.title) << "\" src=\"data:image/png;base64,"
               << base64(read_file(fig_dir / (b.plot.name + ".png"))) << "\">";
          md << "![" << b.plot.title << "](" << png << ")\n\n";
        } else {
          html << "<p class=\"bad\">Figure not drawn: gnuplot is missing or failed (script: "
               << html_escape(slug_ + "/" + b.plot.name + ".gp") << ").</p>";
          md << "**Figure not drawn**: gnuplot is missing or failed (script `" << slug_ << "/" << b.plot.name
             << ".gp`).\n\n";
        }
        html << "<figcaption>Figure " << fig_no << ". " << inline_html(caption);
        if (ok) html << " (<a href=\"" << html_escape(svg) << "\">SVG</a>, data and gnuplot script in <code>"
                     << html_escape(slug_) << "/</code>)";
        html << "</figcaption></figure>\n";
        md << "*Figure " << fig_no << ". " << caption << "* ([SVG](" << svg << "))\n\n";
        break;
      }
    }
  }
  html << "</body></html>\n";
  const fs::path html_path = dir / (slug_ + ".html");
  io::write_file(html_path.string(), html.str());
  io::write_file((dir / (slug_ + ".md")).string(), md.str());
  nlohmann::json j = {{"slug", slug_}, {"title", title_}, {"question", question_}, {"answer", answer_}, {"figures", fig_no}};
  io::write_file((dir / (slug_ + ".json")).string(), j.dump(2) + "\n");
  return html_path.string();
}

}  // namespace warpsparse::notebooks
