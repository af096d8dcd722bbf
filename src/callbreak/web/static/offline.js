// The offline page (offline.html, shown by sw.js when the server cannot be reached), in the
// person's language chosen as i18n.js chooses it: the one kept in `callbreak:lang`, else the
// browser's. It asks the server every few seconds, at once when the browser is back online or
// the person taps *Try now*, and loads the app again (the same address, so the same page of
// the app) as soon as the server answers. Its words are its own: nothing else is loaded here.

const TEXTS = {
  en: {
    page: "Call Break: no connection",
    title: "No connection",
    text: "The Call Break server cannot be reached. Retrying every few seconds: the app comes back by itself as soon as the server answers.",
    retry: "Try now",
    trying: "Trying…",
  },
  ne: {
    page: "कल ब्रेक: जडान छैन",
    title: "जडान छैन",
    text: "कल ब्रेकको सर्भरमा पुग्न सकिएन। केही सेकेन्डमा फेरि प्रयास गरिँदैछ: सर्भरले जवाफ दिनेबित्तिकै एप आफैँ फर्किन्छ।",
    retry: "अहिले प्रयास गर्नुहोस्",
    trying: "प्रयास गरिँदैछ…",
  },
  hi: {
    page: "कॉल ब्रेक: कनेक्शन नहीं है",
    title: "कनेक्शन नहीं है",
    text: "कॉल ब्रेक के सर्वर तक नहीं पहुँच पा रहे। हर कुछ सेकंड में फिर कोशिश हो रही है: सर्वर के जवाब देते ही ऐप अपने आप लौट आएगा।",
    retry: "अभी कोशिश करें",
    trying: "कोशिश हो रही है…",
  },
};
const EVERY = 3000; // ms between two tries

function pick() {
  try {
    const saved = localStorage.getItem("callbreak:lang");
    if (saved && TEXTS[saved]) return saved;
  } catch {
    // storage refused: the browser's language, below
  }
  const wanted = (navigator.language || "en").slice(0, 2).toLowerCase();
  return TEXTS[wanted] ? wanted : "en";
}

const lang = pick();
const words = TEXTS[lang];
const button = /** @type {HTMLButtonElement} */ (document.getElementById("offline-retry"));
document.documentElement.lang = lang;
document.title = words.page;
document.getElementById("offline-title").textContent = words.title;
document.getElementById("offline-text").textContent = words.text;
button.textContent = words.retry;

let timer = null;
let busy = false;

/** Ask the server; load the app again when it answers, else try again in a few seconds. */
async function retry() {
  if (busy) return;
  busy = true;
  clearTimeout(timer);
  button.disabled = true;
  button.textContent = words.trying;
  let back = false;
  try {
    // Not a page: the worker lets it through to the server, past every cache.
    const answer = await fetch("/", { method: "HEAD", cache: "no-store" });
    back = answer.ok;
  } catch {
    // still no answer
  }
  if (back) {
    location.reload();
    return;
  }
  busy = false;
  button.disabled = false;
  button.textContent = words.retry;
  timer = setTimeout(retry, EVERY);
}

button.addEventListener("click", retry);
window.addEventListener("online", retry);
timer = setTimeout(retry, EVERY);
