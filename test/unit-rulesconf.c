// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit-rulesconf.c - the permissions line of 50-capi.rules as
 * rules_conf_parse() reads it: which line, which keys, which values;
 * everything else refused or passed over (test/one-config.sh runs the
 * daemon on whole files).
 */
#include <string.h>
#include "rules_conf.h"
#include "tap.h"

static struct rules_conf c;
static const char *why;

static int parse(const char *text)
{
	memset(&c, 0, sizeof(c));
	why = "";
	return rules_conf_parse(text, strlen(text), &c, &why);
}

#define LINE(keys) "KERNEL==\"capi20\", " keys ", OPTIONS+=\"static_node=capi20\"\n"

int main(void)
{
	static const char nul[] = "# x\n\0" LINE("GROUP=\"isdn\"");

	is_int(parse(LINE("GROUP=\"isdn\", MODE=\"0640\"")), 1, "the line is found");
	is_str(c.group, "isdn", "GROUP=");
	check(c.has_mode && c.mode == 0640, "MODE= 0640 (%o)", (unsigned int)c.mode);
	is_int(parse(LINE("GROUP:=\"isdn\", MODE:=\"600\"")), 1, ":= is read too");
	check(!strcmp(c.group, "isdn") && c.mode == 0600, ":= group %s mode %o", c.group,
	      (unsigned int)c.mode);
	is_int(parse("# " LINE("GROUP=\"a\"") "  " LINE("GROUP=\"b\"")), 1,
	       "a comment is passed over");
	is_str(c.group, "b", "... the next line is taken");
	is_int(parse(LINE("GROUP=\"a\"") LINE("GROUP=\"b\"")), 1, "two lines");
	is_str(c.group, "a", "... the first decides");
	is_int(parse(LINE("ENV{GROUP}=\"x\", GROUP=\"y\"")), 1, "ENV{GROUP}= is not GROUP=");
	is_str(c.group, "y", "... GROUP= is");
	is_int(parse(LINE("XGROUP=\"x\"")), 1, "XGROUP= is not GROUP=");
	check(!c.group[0] && !c.has_mode, "... so the line has neither");
	is_int(parse("KERNEL==\"capi20\", GROUP=\"x\"\n"), 0, "no static_node=capi20: no line");
	is_int(parse(LINE("GROUP=\"a b\"")), -1, "a blank in GROUP= is refused");
	is_int(parse(LINE("GROUP=\"$env{X}\"")), -1, "a substitution in GROUP= is refused");
	is_int(parse(LINE("GROUP=\"\"")), -1, "an empty GROUP= is refused");
	is_int(parse(LINE("GROUP=\"a23456789012345678901234567890123\"")), -1,
	       "a GROUP= of 33 bytes is refused");
	is_int(parse(LINE("GROUP=\"a2345678901234567890123456789012\"")), 1,
	       "a GROUP= of 32 bytes is taken");
	is_int(parse("KERNEL==\"capi20\", OPTIONS+=\"static_node=capi20\", GROUP=\"abc"), -1,
	       "an unclosed GROUP= is refused");
	is_int(parse(LINE("MODE=\"0999\"")), -1, "MODE= 0999 is refused");
	is_int(parse(LINE("MODE=\"17777\"")), -1, "MODE= 17777 is refused");
	is_int(parse(LINE("MODE=\"-660\"")), -1, "MODE= -660 is refused");
	is_int(parse(LINE("MODE=\"07777\"")), 1, "MODE= 07777 is taken");
	is_int(rules_conf_parse(nul, sizeof(nul) - 1, &c, &why), 1, "a NUL before the line");
	is_str(c.group, "isdn", "... the line after it is read");
	return done_testing();
}
