// ---- DOM helpers, written once in templates/ui/_dom.js: every piece of data goes in as text ----

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text != null) node.textContent = String(text);
  return node;
}
/** Third-party text (names, descriptions): in a <bdi> with its own direction, so a bidi
 * override (U+202E) stays inside the value instead of flipping the line. */
function thirdParty(text, className) {
  const node = el('bdi', className || '', text == null ? '' : text);
  node.dir = 'auto';
  return node;
}
function byId(id) {
  return document.getElementById(id);
}
