/**
 * A small Markdown renderer for what operators write (postmortems): a safe subset, no raw HTML.
 *
 * Blocks: paragraphs, headings `#` to `###` (shifted down by `headingOffset`, so they sit under
 * the page's own headings), bullet (`-`, `*`, `+`) and numbered (`1.`, `1)`) lists without
 * nesting, and fenced code blocks (```` ``` ```` or `~~~`). Inline: `**strong**`/`__strong__`,
 * `*emphasis*`/`_emphasis_`, `` `code` ``, backslash escapes and `[text](url)` links. Every piece
 * of text is HTML-escaped; anything else is shown as typed.
 *
 * A link keeps its URL only when it is http(s) or relative (no other scheme such as
 * `javascript:`) and has no whitespace; it gets `rel="nofollow noopener"`. Other links show
 * their text alone.
 *
 * Linear in the input: lines are matched by anchored patterns without nested repetition, and
 * inline delimiters are looked for with `indexOf`, remembering where each was last found, so no
 * input makes the renderer scan the same text over and over.
 */
import { escapeHtml } from "./Html.js"

export interface MarkdownOptions {
  /** Added to a heading's level: with 2, `#` renders as `<h3>` (at most `<h6>`). */
  readonly headingOffset?: number
}

const fence = /^ {0,3}(`{3,}|~{3,})/
const heading = /^ {0,3}(#{1,3})[ \t]+(.*)$/
const bullet = /^ {0,3}[-*+][ \t]+(.*)$/
const numbered = /^ {0,3}\d{1,9}[.)][ \t]+(.*)$/
const blank = /^[ \t]*$/

/** A link's URL is kept when it names no scheme (relative) or http(s), and has no whitespace or control character. */
const safeUrl = (url: string): boolean => {
  if (url.length === 0 || url.length > 2048 || /[\s\u0000-\u001F\u007F]/.test(url)) return false
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)
  return scheme === null || /^https?$/i.test(scheme[1]!)
}

const punctuation = /[!-/:-@[-`{-~]/

/**
 * `indexOf` that remembers each token's last answer: a scan that goes forward never looks past
 * the same text twice for the same token, whatever the input.
 */
const finder = (text: string) => {
  const found = new Map<string, number>()
  return (token: string, from: number): number => {
    const last = found.get(token)
    if (last !== undefined && (last === -1 || last >= from)) return last
    const at = text.indexOf(token, from)
    found.set(token, at)
    return at
  }
}

const isSpace = (char: string | undefined) => char === undefined || /\s/.test(char)
const isWordChar = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}]/u.test(char)

/** Inline markup of one block's text; `links` false inside a link's text (links do not nest). */
const inline = (text: string, links = true): string => {
  const find = finder(text)
  let out = ""
  let plain = ""
  const flush = () => {
    out += escapeHtml(plain)
    plain = ""
  }
  let i = 0
  while (i < text.length) {
    const char = text[i]!
    if (char === "\\" && i + 1 < text.length && punctuation.test(text[i + 1]!)) {
      plain += text[i + 1]
      i += 2
      continue
    }
    if (char === "`") {
      const close = find("`", i + 1)
      if (close > i + 1) {
        flush()
        out += `<code>${escapeHtml(text.slice(i + 1, close))}</code>`
        i = close + 1
        continue
      }
    }
    if (links && char === "[") {
      const close = find("]", i + 1)
      if (close !== -1 && text[close + 1] === "(") {
        const end = find(")", close + 2)
        if (end !== -1) {
          const label = inline(text.slice(i + 1, close), false)
          const url = text.slice(close + 2, end).trim()
          flush()
          out += safeUrl(url) ? `<a href="${escapeHtml(url)}" rel="nofollow noopener">${label}</a>` : label
          i = end + 1
          continue
        }
      }
    }
    if (char === "*" || char === "_") {
      const double = text[i + 1] === char
      const delimiter = double ? char + char : char
      const start = i + delimiter.length
      // An opener is followed by text, and `_` does not open inside a word (snake_case).
      if (!isSpace(text[start]) && !(char === "_" && isWordChar(text[i - 1]))) {
        const close = find(delimiter, start + 1)
        if (
          close !== -1 && !isSpace(text[close - 1]) &&
          !(char === "_" && isWordChar(text[close + delimiter.length]))
        ) {
          flush()
          const tag = double ? "strong" : "em"
          out += `<${tag}>${inline(text.slice(start, close), links)}</${tag}>`
          i = close + delimiter.length
          continue
        }
      }
      plain += delimiter
      i = start
      continue
    }
    plain += char
    i += 1
  }
  flush()
  return out
}

/** Renders `source` as HTML (see the module's comment for the subset). */
export const renderMarkdown = (source: string, options: MarkdownOptions = {}): string => {
  const offset = options.headingOffset ?? 0
  const lines = source.split(/\r\n|\r|\n/)
  const out: Array<string> = []
  let paragraph: Array<string> = []
  let list: { readonly tag: "ul" | "ol"; readonly items: Array<Array<string>> } | undefined

  const closeParagraph = () => {
    if (paragraph.length > 0) out.push(`<p>${inline(paragraph.join("\n"))}</p>`)
    paragraph = []
  }
  const closeList = () => {
    if (list) {
      out.push(`<${list.tag}>${list.items.map((item) => `<li>${inline(item.join("\n"))}</li>`).join("")}</${list.tag}>`)
    }
    list = undefined
  }

  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    const opening = fence.exec(line)
    if (opening) {
      closeParagraph()
      closeList()
      const marker = opening[1]!
      const code: Array<string> = []
      i += 1
      // Closed by a fence of the same character at least as long; an unclosed block runs to the end.
      while (i < lines.length) {
        const closing = fence.exec(lines[i]!)
        if (
          closing && closing[1]![0] === marker[0] && closing[1]!.length >= marker.length &&
          blank.test(lines[i]!.slice(closing[0].length))
        ) break
        code.push(lines[i]!)
        i += 1
      }
      out.push(`<pre><code>${escapeHtml(code.join("\n"))}</code></pre>`)
      i += 1
      continue
    }
    if (blank.test(line)) {
      closeParagraph()
      closeList()
      i += 1
      continue
    }
    const title = heading.exec(line)
    if (title) {
      closeParagraph()
      closeList()
      const level = Math.min(title[1]!.length + offset, 6)
      out.push(`<h${level}>${inline(title[2]!.trim())}</h${level}>`)
      i += 1
      continue
    }
    const item = bullet.exec(line) ?? numbered.exec(line)
    if (item) {
      closeParagraph()
      const tag = bullet.test(line) ? "ul" : "ol"
      if (list?.tag !== tag) closeList()
      list ??= { tag, items: [] }
      list.items.push([item[1]!])
      i += 1
      continue
    }
    // A line of text continues the list item above it, else the paragraph.
    if (list) list.items.at(-1)!.push(line.trim())
    else paragraph.push(line.trim())
    i += 1
  }
  closeParagraph()
  closeList()
  return out.join("\n")
}
