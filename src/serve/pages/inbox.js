// Live inbox: reload when items come or go, unless the person is typing.
"use strict";
(function () {
  if (!window.EventSource) {
    return;
  }
  var source = new EventSource("/events");
  source.addEventListener("change", function () {
    var active = document.activeElement;
    if (active && (active.tagName === "TEXTAREA" || active.tagName === "INPUT")) {
      return;
    }
    window.location.reload();
  });
})();
