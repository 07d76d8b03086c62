// LTI Dynamic Registration ends by telling the platform's page that opened this one to close it.
(window.opener || window.parent).postMessage({ subject: "org.imsglobal.lti.close" }, "*");
