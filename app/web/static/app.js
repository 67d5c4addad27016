// TimeTrace pages: keyboard shortcuts, focus for the episode panel, and the sign-in
// link of `timetrace demo --serve`. Everything works without it; it only helps.
(() => {
  "use strict";
  const typing = (el) =>
    el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
  const follow = (link) => {
    const href = link.href && link.href.baseVal !== undefined ? link.href.baseVal : link.href;
    if (href) window.location.assign(href);
  };

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const active = document.activeElement;
    if (event.key === "Enter" && active && active.classList.contains("block")) {
      event.preventDefault();  // an SVG link: open its panel the same way in every browser
      follow(active);
      return;
    }
    if (typing(active)) return;
    const target = {
      ArrowLeft: "a[rel=prev]",
      ArrowRight: "a[rel=next]",
      Escape: "#panel a.close",
    }[event.key];
    const link = target && document.querySelector(target);
    if (link) {
      event.preventDefault();
      follow(link);
    }
  });

  // After a navigation, the focus goes where the keyboard user was: the opened panel,
  // or the block whose panel was just closed (Chromium does the same for a focusable
  // fragment target; other browsers only scroll to it).
  const spot = window.location.hash && document.getElementById(window.location.hash.slice(1));
  if (spot) spot.focus();

  // `timetrace demo --serve` prints /signin#token=…: the fragment never reaches a
  // server or a log; the form sends it once, then the address bar forgets it.
  const form = document.getElementById("signin-form");
  if (form && window.location.hash.startsWith("#token=")) {
    form.elements.token.value = decodeURIComponent(window.location.hash.slice(7));
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
    form.submit();
  }
})();
