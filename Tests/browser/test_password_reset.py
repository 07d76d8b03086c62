"""A student who forgot a password gets back in through a link that a real mail server delivered."""

import re

from selenium.webdriver.common.by import By

from conftest import SMTP_USER, screenshot, wait_for, wait_for_path


def test_a_forgotten_password_is_replaced_through_the_delivered_link(mail_and_server, browsers):
    mail, server = mail_and_server
    status, _ = server.api(
        "POST", "/api/v1/auth/register",
        {"name": "Zoë Ångström", "email": "zoe@school.test", "password": "my old password"},
    )
    assert status == 201

    browser = browsers()
    browser.get(f"{server.url}/sign-in")
    wait_for(browser, "#forgot-password-link").click()
    form = wait_for(browser, "#forgot-password-form")
    form.find_element(By.NAME, "email").send_keys("zoe@school.test")
    screenshot(browser, "forgot-password")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert "on its way" in wait_for(browser, "#reset-sent").text

    message, envelope = mail.wait_for_message("zoe@school.test", "Set a new password for Hill School")
    assert envelope["mail_from"] == "rollcall@school.test"
    assert envelope["login"] == SMTP_USER and envelope["tls"], "signed in over TLS"
    assert str(message["To"]) == "Zoë Ångström <zoe@school.test>"
    assert message["To"].addresses[0].display_name == "Zoë Ångström"
    assert message["From"].addresses[0].display_name == "Rollcall at Hill School"
    assert message["Date"].datetime is not None
    assert re.fullmatch(r"<rollcall\.\d+\.\d+@school\.test>", message["Message-ID"])
    assert message.get_content_type() == "multipart/alternative"
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    assert text.startswith("Hello Zoë Ångström,")
    assert "The link works once, for 30 minutes." in text
    link = re.search(rf"{re.escape(server.url)}/reset-password\?token=[\w-]+", text).group(0)
    assert f'<a href="{link}"' in html, "the HTML part carries the same link"

    browser.get(link)
    form = wait_for(browser, "#reset-password-form")
    form.find_element(By.NAME, "newPassword").send_keys("my brand new password")
    screenshot(browser, "reset-password")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(browser, "#password-set")
    browser.find_element(By.ID, "sign-in-again").click()

    form = wait_for(browser, "#sign-in-form")
    form.find_element(By.NAME, "email").send_keys("zoe@school.test")
    form.find_element(By.NAME, "password").send_keys("my brand new password")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_path(browser, "/courses")

    # The link was single use.
    status, body = server.api(
        "POST", "/api/v1/auth/password-reset/complete", {"token": link.split("token=")[1], "newPassword": "again and again"}
    )
    assert status == 400 and body["error"]["code"] == "invalid_reset_token"
