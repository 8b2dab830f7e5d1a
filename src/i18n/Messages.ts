/**
 * The message catalogues of the public side, one per language (src/i18n/messages): the page and
 * its sub-pages, the badge, the widget, the feeds' own words and subscriber mail. The English
 * catalogue defines the keys; the admin dashboard keeps its English words (web/Labels.ts).
 */
import type { Locale } from "../domain/Locale.js"
import { de } from "./messages/de.js"
import { en, type Messages } from "./messages/en.js"
import { es } from "./messages/es.js"
import { fr } from "./messages/fr.js"
import { ja } from "./messages/ja.js"
import { ptBR } from "./messages/pt-BR.js"
import { zhCN } from "./messages/zh-CN.js"

export type { Messages }

export const catalogues: Readonly<Record<Locale, Messages>> = {
  en,
  de,
  fr,
  es,
  "pt-BR": ptBR,
  ja,
  "zh-CN": zhCN
}

export const messagesFor = (locale: Locale): Messages => catalogues[locale]
