/* The label grammar (label.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "label.h"
#include "../core/str.h"
#include "../core/banned.h"

static const char *const lab_keys[] = { "lab", "study", "study_run", "experiment", "config",
					"net_backend", "hv_backend", "hv_host", "hv_uri", "policy", "guest", "load" };

bool label_lab_key(const char *key, size_t klen)
{
	for (size_t i = 0; i < sizeof(lab_keys) / sizeof(lab_keys[0]); i++)
		if (strlen(lab_keys[i]) == klen && !memcmp(lab_keys[i], key, klen))
			return true;
	return false;
}

static bool key_char(char c)
{
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || c == '_' || c == '-' ||
	       c == '.';
}

int label_check(const char *key, size_t klen, const char *value, size_t vlen, enum label_use use, char *why,
		size_t len)
{
	int shown = klen > 40 ? 40 : (int)klen;

	if (klen == 0) {
		snprintf(why, len, "the key is empty; %s", LABEL_RULE);
		return -EINVAL;
	}
	if (klen > LABEL_KEY_MAX) {
		snprintf(why, len, "the key '%.*s...' is %zu characters long; a label key has at most %d characters", shown, key,
			 klen, LABEL_KEY_MAX);
		return -E2BIG;
	}
	for (size_t i = 0; i < klen; i++)
		if (!key_char(key[i])) {
			/* a byte is shown as itself only when printable ASCII (no terminal control) */
			if (key[i] >= 0x20 && key[i] < 0x7f)
				snprintf(why, len, "the key has '%c' (character %zu); %s", key[i], i + 1, LABEL_RULE);
			else
				snprintf(why, len, "the key has byte 0x%02x (byte %zu); %s", (unsigned char)key[i], i + 1,
					 LABEL_RULE);
			return -EINVAL;
		}
	if (vlen == 0) {
		snprintf(why, len, "%.*s: the value is empty; %s", shown, key, LABEL_RULE);
		return -EINVAL;
	}
	if (vlen > LABEL_VALUE_MAX) {
		snprintf(why, len, "%.*s: the value is %zu bytes long; a label value has at most %d bytes", shown, key, vlen,
			 LABEL_VALUE_MAX);
		return -E2BIG;
	}
	for (size_t i = 0; i < vlen; i++)
		if (value[i] == ',' || value[i] == '=') {
			snprintf(why, len, "%.*s: the value has '%c' (character %zu), which no selector can select "
				 "(give each label as its own --label KEY=VALUE); %s", shown, key, value[i], i + 1, LABEL_RULE);
			return -EINVAL;
		}
	/* a newline or a tab too: "k=v k2=v2" lists are one line */
	if (str_find_control(value, vlen) >= 0 || memchr(value, '\0', vlen) || memchr(value, '\n', vlen) ||
	    memchr(value, '\t', vlen)) {
		snprintf(why, len, "%.*s: the value has a control character (an escape, a carriage return...); labels "
			 "are text shown on terminals", shown, key);
		return -EINVAL;
	}
	if (str_find_bad_utf8(value, vlen) >= 0) {
		snprintf(why, len, "%.*s: the value is not UTF-8; labels are stored as JSON text", shown, key);
		return -EINVAL;
	}
	if (use == LABEL_SET && label_lab_key(key, klen)) {
		snprintf(why, len, "%.*s is a label the lab sets itself (%s): a run cannot claim a lab session or a "
			 "study; choose another key", shown, key, LABEL_LAB_KEYS);
		return -EINVAL;
	}
	return 0;
}

int label_check_kv(const char *kv, enum label_use use, char *why, size_t len)
{
	const char *eq = strchr(kv, '=');

	if (!eq) {
		snprintf(why, len, "no '=' in it; %s", LABEL_RULE);
		return -EINVAL;
	}
	return label_check(kv, (size_t)(eq - kv), eq + 1, strlen(eq + 1), use, why, len);
}
