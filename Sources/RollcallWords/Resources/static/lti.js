// A launch from a learning platform that could not keep Rollcall's cookie: outside a frame, go on at once; inside
// one, the button opens Rollcall in a window of its own, and the frame says so.
const open = document.getElementById("lti-open");
if (open) {
  if (window.top === window.self) {
    location.replace(open.href);
  } else {
    open.addEventListener("click", () => {
      document.getElementById("lti-opened").hidden = false;
    });
  }
}
