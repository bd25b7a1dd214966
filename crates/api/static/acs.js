// Progressive enhancement only: every page works without this script.
// Adds a "Copy" button after each read-only value shown once (tokens, client secrets).
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("input.copyable").forEach(function (input) {
    if (!navigator.clipboard) {
      return;
    }
    var button = document.createElement("button");
    button.type = "button";
    button.className = "secondary small copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy " + (input.labels[0] ? input.labels[0].textContent : "value"));
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(input.value).then(function () {
        button.textContent = "Copied";
      }, function () {
        input.select();
        button.textContent = "Select and copy";
      });
    });
    input.insertAdjacentElement("afterend", button);
  });
});
