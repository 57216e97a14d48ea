//===- Page.h - Telar's self-contained HTML pages ---------------*- C++ -*-===//
//
// One page, two views: a plan (telarc --explain-html: the mesh, the
// shardings as blocks coloured by rank, the predicted cost, the runner-ups,
// a pipeline's schedule) and a run's trace (telar-run --trace FILE.html: a
// timeline per rank). The page holds its data, style and drawing code
// (lib/view/page, embedded at build time): no network, no external
// scripts. Plain C++17, shared by the compiler and telar-run.
//
//===----------------------------------------------------------------------===//

#ifndef TELAR_VIEW_PAGE_H
#define TELAR_VIEW_PAGE_H

#include <string>

namespace telar_view {

/// The page drawing `dataJson`, a JSON object whose "kind" is "plan"
/// (ExplainPage.cpp's data) or "trace" ({"kind": "trace", "trace": the
/// trace-event file's object}); `title` is the page's title.
std::string renderPage(const std::string &title, const std::string &dataJson);

} // namespace telar_view

#endif // TELAR_VIEW_PAGE_H
