/**
 * Building HTML as strings with every piece of user text escaped: `html` escapes each
 * interpolated value unless it is `Raw` (markup built here), so a title such as
 * `<script>` renders as text.
 */
export class Raw {
  constructor(readonly markup: string) {}
  toString() {
    return this.markup
  }
}

const needsEscaping = /[&<>"']/

export const escapeHtml = (text: string): string =>
  !needsEscaping.test(text)
    ? text
    : text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(
      /'/g,
      "&#39;"
    )

type Value = string | number | Raw | null | undefined | false | ReadonlyArray<Value>

const render = (value: Value): string =>
  value === null || value === undefined || value === false
    ? ""
    : value instanceof Raw
    ? value.markup
    : Array.isArray(value)
    ? value.map(render).join("")
    : escapeHtml(String(value))

export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Value>): Raw =>
  new Raw(strings.reduce((out, text, i) => out + text + (i < values.length ? render(values[i] as Value) : ""), ""))
