// Referee sign-in page: only the language switch; the form posts without script.
import { initLang } from "./i18n.js";

initLang();
