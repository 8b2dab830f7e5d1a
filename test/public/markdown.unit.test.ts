import { describe, expect, it } from "vitest"

import { renderMarkdown } from "../../src/public/render/Markdown.js"

describe("renderMarkdown", () => {
  it("renders paragraphs, headings, lists, emphasis and code", () => {
    const html = renderMarkdown(
      [
        "# Summary",
        "The **database** was *slow* for `20` minutes.",
        "Second line.",
        "",
        "## Timeline",
        "- 10:00 alert",
        "- 10:05 __page__ sent",
        "",
        "1. Fix _one_",
        "2) Fix two",
        "",
        "### Code",
        "```sql",
        "select * from t where a < 1;",
        "```",
        "#### not a heading"
      ].join("\n")
    )
    expect(html).toBe(
      [
        "<h1>Summary</h1>",
        "<p>The <strong>database</strong> was <em>slow</em> for <code>20</code> minutes.\nSecond line.</p>",
        "<h2>Timeline</h2>",
        "<ul><li>10:00 alert</li><li>10:05 <strong>page</strong> sent</li></ul>",
        "<ol><li>Fix <em>one</em></li><li>Fix two</li></ol>",
        "<h3>Code</h3>",
        "<pre><code>select * from t where a &lt; 1;</code></pre>",
        "<p>#### not a heading</p>"
      ].join("\n")
    )
  })

  it("shifts headings below the page's own", () => {
    expect(renderMarkdown("# A\n### C", { headingOffset: 2 })).toBe("<h3>A</h3>\n<h5>C</h5>")
  })

  it("keeps snake_case words, unmatched delimiters and backslash escapes as text", () => {
    expect(renderMarkdown("snake_case_name and 2 * 3 and \\*not em\\* and **open")).toBe(
      "<p>snake_case_name and 2 * 3 and *not em* and **open</p>"
    )
  })

  it("links http(s) and relative URLs with rel nofollow noopener", () => {
    expect(renderMarkdown("[docs](https://example.com/a?b=1&c=2) and [here](/incidents/1)")).toBe(
      "<p><a href=\"https://example.com/a?b=1&amp;c=2\" rel=\"nofollow noopener\">docs</a> and " +
        "<a href=\"/incidents/1\" rel=\"nofollow noopener\">here</a></p>"
    )
  })

  it("escapes raw HTML everywhere", () => {
    const html = renderMarkdown("<script>alert(1)</script>\n# <img src=x onerror=alert(1)>\n- <b>x</b>\n\n`<i>`")
    expect(html).not.toMatch(/<(script|img|b|i)\b/)
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
    expect(html).toContain("<h1>&lt;img src=x onerror=alert(1)&gt;</h1>")
    expect(html).toContain("<code>&lt;i&gt;</code>")
  })

  it("drops links to other schemes, keeping their text", () => {
    for (
      const url of [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:x",
        "java\tscript:alert(1)",
        " javascript:alert(1)"
      ]
    ) {
      const html = renderMarkdown(`[click](${url})`)
      expect(html).not.toContain("href")
      expect(html).not.toContain("<script")
      expect(html).toContain("click")
    }
  })

  it("cannot break out of the href attribute or the link text", () => {
    const html = renderMarkdown("[x\" onclick=\"alert(1)](https://e.com/\"onmouseover=\"alert(1))")
    expect(html).toBe(
      "<p><a href=\"https://e.com/&quot;onmouseover=&quot;alert(1\" rel=\"nofollow noopener\">x&quot; " +
        "onclick=&quot;alert(1)</a>)</p>"
    )
    expect(renderMarkdown("[<img src=x onerror=alert(1)>](/a)")).toBe(
      "<p><a href=\"/a\" rel=\"nofollow noopener\">&lt;img src=x onerror=alert(1)&gt;</a></p>"
    )
    // Links do not nest: the first "](" closes the text.
    expect(renderMarkdown("[[a](/b)](/c)")).toBe("<p><a href=\"/b\" rel=\"nofollow noopener\">[a</a>](/c)</p>")
  })

  it("renders hostile long input in linear time", () => {
    const inputs = [
      "[".repeat(200_000),
      "[a](".repeat(50_000),
      "*a ".repeat(70_000),
      "**".repeat(100_000),
      "_a".repeat(100_000),
      "`".repeat(200_000),
      "- ".repeat(100_000),
      `${" ".repeat(100_000)}x`,
      "```\n".repeat(50_000),
      "a\n".repeat(100_000)
    ]
    for (const input of inputs) {
      const started = performance.now()
      renderMarkdown(input)
      expect(performance.now() - started).toBeLessThan(1000)
    }
  })
})
