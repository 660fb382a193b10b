"""Text from outside the app shown as written in Streamlit's Markdown (``engine.markdown``)."""

from markdown_it import MarkdownIt

from s3vm_explorer.engine.markdown import WORD_JOINER, literal


def test_text_from_outside_is_shown_as_written_and_no_address_becomes_a_link():
    for text in ("[click me](http://a.example/)", "![x](https://a.example/p.png)",
                 "<img src=x>", "`code`", "www.a.example", "me@a.example", ":red[x]"):
        shown = literal(text)
        tokens = MarkdownIt("commonmark").parse(shown)
        kinds = {c.type for t in tokens for c in (t.children or [])}
        assert not kinds & {"link_open", "image", "html_inline", "code_inline"}, text
        # a reader sees the text itself (the escapes and the invisible joiners read away)
        rendered = "".join(c.content for t in tokens for c in (t.children or []))
        assert rendered.replace(WORD_JOINER, "") == text
        # and no bare address is left for GitHub's Markdown to turn into a link
        assert "://" not in shown and "www." not in shown and "@" not in shown.replace("\\@", "")
