// ccmem ui: the page works without this script; it only adds "/" to jump
// to the search box, and Escape to leave it.
document.addEventListener("keydown", (e) => {
  const q = document.getElementById("q");
  if (!q) return;
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName || "");
  if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
    e.preventDefault();
    q.focus();
    q.select();
  } else if (e.key === "Escape" && document.activeElement === q) {
    q.blur();
  }
});
