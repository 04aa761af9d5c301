// Live inbox: reload when items come or go after the page was made, unless the person is
// typing. The page says which change it shows (data-since); the stream sends a later one.
"use strict";
(function () {
  var inbox = document.getElementById("inbox");
  if (!window.EventSource || !inbox) {
    return;
  }
  var since = inbox.getAttribute("data-since") || "";
  var source = new EventSource("/events?since=" + encodeURIComponent(since));
  source.addEventListener("change", function () {
    var active = document.activeElement;
    if (active && (active.tagName === "TEXTAREA" || active.tagName === "INPUT")) {
      return;
    }
    source.close();
    window.location.reload();
  });
})();
