// SPDX-License-Identifier: GPL-2.0-only
/*
 * capisim - a simulated CAPI 2.0 controller
 *
 * capisim registers one or more software controllers with kernelcapi.
 * Each of them answers the CAPI 2.0 requests of applications the way an
 * ISDN controller connected to a well-behaved network would: a call is
 * offered to the applications that listen for it, the first to accept
 * gets it; calls nobody listens for are connected at once and data sent
 * on them is echoed back; and the "network" side (incoming calls, remote
 * B3 connections, remote hangup) is driven through debugfs.  It exists to test CAPI
 * applications and the /dev/capi20 and /dev/capi/N interfaces without
 * ISDN hardware.  See Documentation/isdn/capisim.rst.
 *
 * This file is capi-devd's kernel/capisim/capisim.c, one source for every
 * kernel it is built for, in the tree (drivers/isdn/capi/) or out of it
 * (DKMS); what differs between kernels is in capisim-compat.h.
 *
 * Copyright (C) 2026 capi-devd developers
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/isdn/capicmd.h>
#include <linux/isdn/capilli.h>
#include <linux/isdn/capiutil.h>
#include <linux/kernel.h>
#include <linux/kernelcapi.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "capisim-compat.h"

#define CAPISIM_MAX_BCHAN	255	/* the PLCI has one byte for it */
#define CAPISIM_NUM_LEN		32	/* digits kept of a party number */
#define CAPISIM_MSG_ROOM	128	/* parameters of one message */
#define CAPISIM_MAX_B3_DATA	2048	/* largest DATA_B3_REQ accepted */
#define CAPISIM_ECHOQ_MAX	256	/* echoes held back per connection */
/* MaxBDataBlocks: CAPI 2.0 allows an application at most 7 */
#define CAPISIM_MAX_WINDOW	7
#define CAPISIM_FLOOD_MAX	1000000	/* DATA_B3_INDs of one flood */

/* DISCONNECT_IND reasons: Q.931 causes, coded 0x3480 | cause */
#define CAPISIM_REASON_REMOTE		0x3490	/* 16, normal call clearing */
#define CAPISIM_REASON_BUSY		0x3491	/* 17, user busy */
#define CAPISIM_REASON_NO_USER		0x3492	/* 18, no user responding */
#define CAPISIM_REASON_NO_ANSWER	0x3493	/* 19, no answer (alerted) */
#define CAPISIM_REASON_REJECTED		0x3495	/* 21, call rejected */
/* DISCONNECT_IND reason: another application got that call */
#define CAPISIM_REASON_OTHER_APPL	0x3304

/* CAPI 2.0 Info values used in confirmations */
#define CAPISIM_INFO_OK			0x0000
#define CAPISIM_INFO_ALREADY_ALERTED	0x0003
#define CAPISIM_INFO_WRONG_STATE	0x2001
#define CAPISIM_INFO_ILLEGAL_ID		0x2002
#define CAPISIM_INFO_OUT_OF_PLCI	0x2003
#define CAPISIM_INFO_OUT_OF_NCCI	0x2004
#define CAPISIM_INFO_ILLEGAL_CODING	0x2007
#define CAPISIM_INFO_B1_UNSUPPORTED	0x3001
#define CAPISIM_INFO_B2_UNSUPPORTED	0x3002
#define CAPISIM_INFO_B3_UNSUPPORTED	0x3003
#define CAPISIM_INFO_BPROT_COMBINATION	0x3007
#define CAPISIM_INFO_NO_FACILITY	0x300b
#define CAPISIM_INFO_DATA_LENGTH	0x300c
#define CAPISIM_INFO_NO_RESET		0x300d

static unsigned int nctrl = 1;
module_param(nctrl, uint, 0444);
MODULE_PARM_DESC(nctrl, "number of controllers (1-32, default 1)");

static unsigned int nbchan = 2;
module_param(nbchan, uint, 0444);
MODULE_PARM_DESC(nbchan, "B channels per controller (1-255, default 2)");

static unsigned int answer_timeout = 30;
module_param(answer_timeout, uint, 0644);
MODULE_PARM_DESC(answer_timeout,
		 "seconds a switched call is offered before it is given up (1-3600, default 30)");

static unsigned int echo_limit = SZ_4M;
module_param(echo_limit, uint, 0444);
MODULE_PARM_DESC(echo_limit,
		 "memory for held-back echo data of one application on a controller, in bytes (default 4 MiB)");

/* memory held by the echo queues of all controllers (skb truesize) */
static atomic_t capisim_echo_bytes = ATOMIC_INIT(0);

enum capisim_pstate {
	PLCI_FREE = 0,
	PLCI_OUTGOING,		/* switched, offered to the peer's application */
	PLCI_INCOMING,		/* CONNECT_INDs sent, waiting for CONNECT_RESP */
	PLCI_WAIT_ACTIVE,	/* CONNECT_ACTIVE_IND sent, waiting for RESP */
	PLCI_ACTIVE,
	PLCI_DISCONNECTING,	/* DISCONNECT_IND sent, waiting for RESP */
};

enum capisim_nstate {
	NCCI_NONE = 0,
	NCCI_OUTGOING,		/* switched, CONNECT_B3_IND sent to the peer */
	NCCI_INCOMING,		/* CONNECT_B3_IND sent, waiting for RESP */
	NCCI_WAIT_ACTIVE,	/* CONNECT_B3_ACTIVE_IND sent, waiting for RESP */
	NCCI_ACTIVE,
	NCCI_DISCONNECTING,	/* DISCONNECT_B3_IND sent, waiting for RESP */
};

static const char * const capisim_pstate_name[] = {
	[PLCI_FREE]		= "free",
	[PLCI_OUTGOING]		= "outgoing",
	[PLCI_INCOMING]		= "incoming",
	[PLCI_WAIT_ACTIVE]	= "wait-active",
	[PLCI_ACTIVE]		= "active",
	[PLCI_DISCONNECTING]	= "disconnecting",
};

static const char * const capisim_nstate_name[] = {
	[NCCI_NONE]		= "none",
	[NCCI_OUTGOING]		= "outgoing",
	[NCCI_INCOMING]		= "incoming",
	[NCCI_WAIT_ACTIVE]	= "wait-active",
	[NCCI_ACTIVE]		= "active",
	[NCCI_DISCONNECTING]	= "disconnecting",
};

struct capisim_ctrl;

/*
 * Fault injection (debugfs "malform"): the next DATA_B3_IND of an NCCI
 * goes out spoilt, as a broken controller or a Bluetooth CMTP peer could
 * send it.  Its receiver must drop it (and send no DATA_B3_RESP for it,
 * so it does not count against the window).
 */
enum capisim_malform {
	MALFORM_NONE,
	MALFORM_DATALEN,	/* Data length one more than the data */
	MALFORM_LEN,		/* message length 8 bytes beyond the skb */
	MALFORM_SHORT,		/* cut after the Data pointer, 16 bytes */
};

/*
 * One B channel; it carries at most one PLCI and that at most one NCCI.
 * A switched call takes two channels of the same controller, one for
 * each application, which point to each other with @peer until the call
 * is cleared.
 */
struct capisim_chan {
	struct capisim_ctrl *cs;
	struct capisim_chan *peer;
	struct timer_list answer_timer;	/* outgoing switched call */
	unsigned long answer_deadline;
	enum capisim_pstate pstate;
	enum capisim_nstate nstate;
	u16 applid;		/* 0 while the call is offered */
	/* PLCI_INCOMING: the applications offered the call, not answered */
	DECLARE_BITMAP(offered, CAPI_MAXAPPL);
	u16 reject;		/* a CONNECT_RESP's reject value, not ignore */
	u16 cip;
	u32 plci;
	u32 ncci;
	bool outgoing;
	bool alerted;
	char called[CAPISIM_NUM_LEN + 1];
	char calling[CAPISIM_NUM_LEN + 1];
	u16 ind_handle;		/* next DATA_B3_IND data handle */
	unsigned int unacked;	/* DATA_B3_INDs without DATA_B3_RESP */
	/* the data handles of those DATA_B3_INDs, in the order sent */
	u16 unacked_handle[CAPISIM_MAX_WINDOW];
	/* fault injection: DATA_B3_INDs still to send, see flood */
	unsigned int flood;
	unsigned int flood_len;
	u8 flood_seq;
	/*
	 * DATA_B3_INDs held back by the window: echoed data, or on a
	 * switched call the peer's data, each request followed by its
	 * DATA_B3_CONF for the peer's application
	 */
	struct sk_buff_head echoq;
	/* fault injection: how to spoil the next DATA_B3_IND, see malform */
	enum capisim_malform malform;
	/* fault injection: DATA_B3_REQs still to refuse, see sendqueuefull */
	unsigned int sendqueuefull;
	/* fault injection: DATA_B3_INDs still to send past the window */
	unsigned int overrun;
	unsigned long tx_frames, tx_bytes;	/* DATA_B3_REQ */
	unsigned long rx_frames, rx_bytes;	/* DATA_B3_IND */
	unsigned long dropped;
};

struct capisim_appl {
	bool registered;
	u32 level3cnt;
	unsigned int window;
	unsigned int blklen;
	unsigned int nccis;
	u32 info_mask;
	u32 cip_mask;
	u32 cip_mask2;
	char msn[CAPISIM_NUM_LEN + 1];	/* LISTEN_REQ calling party number */
	unsigned int echo_bytes;	/* held back for it, see echo_limit */
};

struct capisim_ctrl {
	struct capi_ctr ctr;
	unsigned int index;
	bool attached;

	/* everything below is protected by lock */
	spinlock_t lock;
	u16 msgnum;		/* for messages originated by the controller */
	u16 ncci_seq;
	unsigned int nbchan;
	struct capisim_chan *chan;
	struct capisim_appl appl[CAPI_MAXAPPL];
	struct sk_buff_head txq; /* messages for kernelcapi, in order */

	/* DATA_B3_RESPs for a data handle that is not outstanding */
	unsigned long stray_resp;
	/* fault injection: indications sent for no PLCI or NCCI (stray) */
	unsigned long stray_ind;

	struct work_struct tx_work;
	struct dentry *debugfs;
	char procinfo[32];
};

static struct capisim_ctrl **capisim_ctrls;
static struct dentry *capisim_debugfs_root;

static struct capisim_ctrl *to_capisim(struct capi_ctr *ctr)
{
	return container_of(ctr, struct capisim_ctrl, ctr);
}

static struct capisim_appl *capisim_appl(struct capisim_ctrl *cs, u16 applid)
{
	if (applid < 1 || applid > CAPI_MAXAPPL)
		return NULL;
	if (!cs->appl[applid - 1].registered)
		return NULL;
	return &cs->appl[applid - 1];
}

/* -------- parsing of application messages ---------------------------- */

struct capisim_req {
	const u8 *p;
	unsigned int len;
	unsigned int pos;
	bool bad;
};

static u8 req_u8(struct capisim_req *r)
{
	if (r->bad || r->len - r->pos < 1) {
		r->bad = true;
		return 0;
	}
	return r->p[r->pos++];
}

static u16 req_u16(struct capisim_req *r)
{
	u16 v;

	if (r->bad || r->len - r->pos < 2) {
		r->bad = true;
		return 0;
	}
	v = CAPIMSG_U16(r->p, r->pos);
	r->pos += 2;
	return v;
}

static u32 req_u32(struct capisim_req *r)
{
	u32 v;

	if (r->bad || r->len - r->pos < 4) {
		r->bad = true;
		return 0;
	}
	v = CAPIMSG_U32(r->p, r->pos);
	r->pos += 4;
	return v;
}

/* A CAPI struct: length byte (0xff: a 16 bit length follows), contents. */
static const u8 *req_struct(struct capisim_req *r, unsigned int *slen)
{
	unsigned int l;
	const u8 *s;

	*slen = 0;
	l = req_u8(r);
	if (l == 0xff)
		l = req_u16(r);
	if (r->bad || r->len - r->pos < l) {
		r->bad = true;
		return NULL;
	}
	s = r->p + r->pos;
	r->pos += l;
	*slen = l;
	return s;
}

static void req_skip_structs(struct capisim_req *r, unsigned int n)
{
	unsigned int l;

	while (n--)
		req_struct(r, &l);
}

/* Keep the digits of a party number, without its type/plan octets. */
static void capisim_number(char *dst, const u8 *s, unsigned int len,
			   bool calling)
{
	unsigned int i = 0, n = 0;

	if (len && calling && !(s[0] & 0x80))
		i = 2;		/* octet 3a, presentation/screening follows */
	else if (len)
		i = 1;
	for (; i < len && n < CAPISIM_NUM_LEN; i++)
		if (isdigit(s[i]) || s[i] == '*' || s[i] == '#')
			dst[n++] = s[i];
	dst[n] = '\0';
}

/* B protocol struct: B1, B2, B3 protocol, their configurations, ... */
static u16 capisim_check_bprotocol(const u8 *s, unsigned int len)
{
	struct capisim_req b = { .p = s, .len = len };
	u16 b1, b2, b3;

	if (!len)
		return CAPISIM_INFO_OK;	/* default: HDLC, X.75, transparent */
	b1 = req_u16(&b);
	b2 = req_u16(&b);
	b3 = req_u16(&b);
	req_skip_structs(&b, 3);
	if (b.bad)
		return CAPISIM_INFO_ILLEGAL_CODING;
	if (b1 > 1)		/* 64 kbit/s with HDLC framing or transparent */
		return CAPISIM_INFO_B1_UNSUPPORTED;
	if (b2 > 1)		/* ISO 7776 (X.75 SLP) or transparent */
		return CAPISIM_INFO_B2_UNSUPPORTED;
	if (b3 != 0)		/* transparent */
		return CAPISIM_INFO_B3_UNSUPPORTED;
	if (b1 == 1 && b2 != 1)
		return CAPISIM_INFO_BPROT_COMBINATION;
	return CAPISIM_INFO_OK;
}

/* -------- building messages for applications -------------------------- */

/*
 * The functions that build a message return it, or NULL when it cannot
 * be allocated.  Their callers allocate all the messages that go with a
 * change of state before they make the change, so that running out of
 * memory leaves the state as it was, and then queue the messages with
 * capisim_queue().
 */

static struct sk_buff *capisim_msg(u16 applid, u8 cmd, u8 subcmd, u16 msgnum,
				   u32 adr, unsigned int extra)
{
	struct sk_buff *skb;
	u8 *m;

	skb = alloc_skb(CAPIMSG_BASELEN + CAPISIM_MSG_ROOM + extra,
			GFP_ATOMIC);
	if (!skb)
		return NULL;
	m = skb_put(skb, CAPIMSG_BASELEN + 4);
	CAPIMSG_SETLEN(m, CAPIMSG_BASELEN + 4);
	CAPIMSG_SETAPPID(m, applid);
	CAPIMSG_SETCOMMAND(m, cmd);
	CAPIMSG_SETSUBCOMMAND(m, subcmd);
	CAPIMSG_SETMSGID(m, msgnum);
	CAPIMSG_SETCONTROL(m, adr);
	return skb;
}

/* Parameters; on a NULL @skb (not allocated) they do nothing. */
static void msg_u16(struct sk_buff *skb, u16 v)
{
	if (skb)
		capimsg_setu16(skb_put(skb, 2), 0, v);
}

static void msg_u32(struct sk_buff *skb, u32 v)
{
	if (skb)
		capimsg_setu32(skb_put(skb, 4), 0, v);
}

static void msg_struct(struct sk_buff *skb, const void *s, u8 len)
{
	if (!skb)
		return;
	skb_put_u8(skb, len);
	if (len)
		skb_put_data(skb, s, len);
}

static void msg_empty(struct sk_buff *skb, unsigned int n)
{
	while (skb && n--)
		skb_put_u8(skb, 0);
}

/* The message is complete: set its length and queue it for delivery. */
static void capisim_queue(struct capisim_ctrl *cs, struct sk_buff *skb)
{
	CAPIMSG_SETLEN(skb->data, skb->len);
	/* the controller numbers its indications in the order they are sent */
	if (CAPIMSG_SUBCOMMAND(skb->data) == CAPI_IND)
		CAPIMSG_SETMSGID(skb->data, cs->msgnum++);
	__skb_queue_tail(&cs->txq, skb);
}

/* A message originated by the controller; numbered by capisim_queue(). */
static struct sk_buff *capisim_ind(u16 applid, u8 cmd, u32 adr)
{
	return capisim_msg(applid, cmd, CAPI_IND, 0, adr, 0);
}

/* The confirmation of request @m, with the usual "address, Info" body. */
static struct sk_buff *capisim_conf(const u8 *m, u32 adr, u16 info)
{
	struct sk_buff *skb;

	skb = capisim_msg(CAPIMSG_APPID(m), CAPIMSG_COMMAND(m), CAPI_CONF,
			  CAPIMSG_MSGID(m), adr, 0);
	msg_u16(skb, info);
	return skb;
}

static struct sk_buff *capisim_connect_ind(struct capisim_chan *ch, u16 applid,
					   u16 cip, const char *called,
					   const char *calling)
{
	u8 num[CAPISIM_NUM_LEN + 2];
	struct sk_buff *skb;
	unsigned int n;

	skb = capisim_ind(applid, CAPI_CONNECT, ch->plci);
	msg_u16(skb, cip);
	/* called party number: type of number and numbering plan, digits */
	num[0] = 0x80;
	n = strlen(called);
	memcpy(num + 1, called, n);
	msg_struct(skb, num, n + 1);
	/* calling party number: also presentation and screening */
	num[0] = 0x00;
	num[1] = 0x80;
	n = strlen(calling);
	memcpy(num + 2, calling, n);
	msg_struct(skb, num, n ? n + 2 : 0);
	/* subaddresses, BC, LLC, HLC, additional info */
	msg_empty(skb, 6);
	return skb;
}

static struct sk_buff *capisim_connect_active_ind(struct capisim_chan *ch)
{
	struct sk_buff *skb;

	skb = capisim_ind(ch->applid, CAPI_CONNECT_ACTIVE, ch->plci);
	/* connected number, connected subaddress, LLC */
	msg_empty(skb, 3);
	return skb;
}

static struct sk_buff *capisim_disconnect_ind_to(struct capisim_chan *ch,
						 u16 applid, u16 reason)
{
	struct sk_buff *skb;

	skb = capisim_ind(applid, CAPI_DISCONNECT, ch->plci);
	msg_u16(skb, reason);
	return skb;
}

static struct sk_buff *capisim_disconnect_ind(struct capisim_chan *ch,
					      u16 reason)
{
	return capisim_disconnect_ind_to(ch, ch->applid, reason);
}

/*
 * DISCONNECT_IND with @reason, into @q, for each application the call on
 * @ch is offered to except @keep; false (and @q purged) when out of
 * memory.
 */
static bool capisim_offer_end_alloc(struct capisim_chan *ch, u16 keep,
				    u16 reason, struct sk_buff_head *q)
{
	struct sk_buff *skb;
	unsigned int i;

	for_each_set_bit(i, ch->offered, CAPI_MAXAPPL) {
		if (i + 1 == keep)
			continue;
		skb = capisim_disconnect_ind_to(ch, i + 1, reason);
		if (!skb) {
			__skb_queue_purge(q);
			return false;
		}
		__skb_queue_tail(q, skb);
	}
	return true;
}

static struct sk_buff *capisim_connect_b3_ind(struct capisim_chan *ch)
{
	struct sk_buff *skb;

	skb = capisim_ind(ch->applid, CAPI_CONNECT_B3, ch->ncci);
	msg_empty(skb, 1);	/* NCPI */
	return skb;
}

static struct sk_buff *capisim_b3_active_ind(struct capisim_chan *ch)
{
	struct sk_buff *skb;

	skb = capisim_ind(ch->applid, CAPI_CONNECT_B3_ACTIVE, ch->ncci);
	msg_empty(skb, 1);	/* NCPI */
	return skb;
}

static struct sk_buff *capisim_disconnect_b3_ind(struct capisim_chan *ch,
						 u16 reason_b3)
{
	struct sk_buff *skb;

	skb = capisim_ind(ch->applid, CAPI_DISCONNECT_B3, ch->ncci);
	msg_u16(skb, reason_b3);
	msg_empty(skb, 1);	/* NCPI */
	return skb;
}

/* -------- echo queues ------------------------------------------------- */

/*
 * What waits in the echo queue of @ch waits for its application: count
 * @skb against that application's echo_limit, so that an application
 * that does not answer its DATA_B3_INDs holds back its own data only.
 * false if it would exceed the limit.
 */
static bool capisim_echo_charge(struct capisim_chan *ch, struct sk_buff *skb)
{
	struct capisim_appl *ap = capisim_appl(ch->cs, ch->applid);

	if (!ap || skb->truesize > echo_limit - ap->echo_bytes)
		return false;
	ap->echo_bytes += skb->truesize;
	atomic_add(skb->truesize, &capisim_echo_bytes);
	return true;
}

static void capisim_echo_uncharge(struct capisim_chan *ch, struct sk_buff *skb)
{
	struct capisim_appl *ap = capisim_appl(ch->cs, ch->applid);

	if (ap)
		ap->echo_bytes -= skb->truesize;
	atomic_sub(skb->truesize, &capisim_echo_bytes);
}

static struct sk_buff *capisim_echo_dequeue(struct capisim_chan *ch)
{
	struct sk_buff *skb = __skb_dequeue(&ch->echoq);

	if (skb)
		capisim_echo_uncharge(ch, skb);
	return skb;
}

static struct sk_buff *capisim_echo_unqueue_tail(struct capisim_chan *ch)
{
	struct sk_buff *skb = __skb_dequeue_tail(&ch->echoq);

	if (skb)
		capisim_echo_uncharge(ch, skb);
	return skb;
}

static void capisim_echo_purge(struct capisim_chan *ch)
{
	struct sk_buff *skb;

	while ((skb = capisim_echo_dequeue(ch)))
		kfree_skb(skb);
}

/* -------- channels ---------------------------------------------------- */

/*
 * A free channel, set up for a new call of @applid, or NULL when all are
 * busy.  It stays free until the caller sets its pstate.
 */
static struct capisim_chan *capisim_chan_alloc(struct capisim_ctrl *cs,
					       u16 applid)
{
	struct capisim_chan *ch;
	unsigned int i;

	for (i = 0; i < cs->nbchan; i++) {
		ch = &cs->chan[i];
		if (ch->pstate != PLCI_FREE)
			continue;
		ch->applid = applid;
		bitmap_zero(ch->offered, CAPI_MAXAPPL);
		ch->reject = 0;
		ch->peer = NULL;
		ch->plci = cs->ctr.cnr | ((i + 1) << 8);
		ch->ncci = 0;
		ch->nstate = NCCI_NONE;
		ch->alerted = false;
		ch->called[0] = '\0';
		ch->calling[0] = '\0';
		ch->ind_handle = 0;
		ch->unacked = 0;
		ch->tx_frames = 0;
		ch->tx_bytes = 0;
		ch->rx_frames = 0;
		ch->rx_bytes = 0;
		ch->dropped = 0;
		ch->malform = MALFORM_NONE;
		ch->sendqueuefull = 0;
		ch->overrun = 0;
		ch->flood = 0;
		return ch;
	}
	return NULL;
}

static void capisim_ncci_free(struct capisim_ctrl *cs, struct capisim_chan *ch)
{
	struct capisim_appl *ap = capisim_appl(cs, ch->applid);

	if (ch->nstate == NCCI_NONE)
		return;
	if (ap && ap->nccis)
		ap->nccis--;
	capisim_echo_purge(ch);
	ch->nstate = NCCI_NONE;
	ch->ncci = 0;
	ch->unacked = 0;
	/* faults injected on the NCCI go with it */
	ch->malform = MALFORM_NONE;
	ch->sendqueuefull = 0;
	ch->overrun = 0;
	ch->flood = 0;
}

static void capisim_chan_free(struct capisim_ctrl *cs, struct capisim_chan *ch)
{
	capisim_ncci_free(cs, ch);
	ch->pstate = PLCI_FREE;
	ch->applid = 0;
	ch->plci = 0;
}

/*
 * A new NCCI number for @ch, or 0 when its application may not have
 * another B3 connection.  The NCCI exists once capisim_ncci_start() has
 * given it a state.
 */
static u32 capisim_ncci_alloc(struct capisim_ctrl *cs, struct capisim_chan *ch)
{
	struct capisim_appl *ap = capisim_appl(cs, ch->applid);

	if (!ap || ch->nstate != NCCI_NONE)
		return 0;
	if (ap->level3cnt && ap->nccis >= ap->level3cnt)
		return 0;
	if (!++cs->ncci_seq)
		cs->ncci_seq = 1;
	ch->ncci = ch->plci | ((u32)cs->ncci_seq << 16);
	return ch->ncci;
}

/* The NCCI of capisim_ncci_alloc() comes into being, in state @nstate. */
static void capisim_ncci_start(struct capisim_ctrl *cs,
			       struct capisim_chan *ch,
			       enum capisim_nstate nstate)
{
	capisim_appl(cs, ch->applid)->nccis++;
	ch->nstate = nstate;
	ch->unacked = 0;
}

/* With DISCONNECT_B3_IND: no data after it, drop what is held back. */
static void capisim_ncci_disconnecting(struct capisim_chan *ch)
{
	capisim_echo_purge(ch);
	ch->flood = 0;
	ch->nstate = NCCI_DISCONNECTING;
}

static bool capisim_b3_up(struct capisim_chan *ch)
{
	return ch->nstate != NCCI_NONE && ch->nstate != NCCI_DISCONNECTING;
}

/* The messages that clear one side of a call, allocated beforehand. */
struct capisim_clear {
	struct sk_buff *b3_ind;	/* DISCONNECT_B3_IND, if a B3 connection is up */
	struct sk_buff *ind;	/* DISCONNECT_IND, unless only B3 is cleared */
	/* a call still offered: DISCONNECT_IND for the others offered it */
	struct sk_buff_head others;
	u16 owner;		/* who releases the PLCI: @ind's application */
};

static bool capisim_clear_alloc(struct capisim_chan *ch, bool plci, u16 reason,
				u16 reason_b3, struct capisim_clear *c)
{
	c->b3_ind = NULL;
	c->ind = NULL;
	__skb_queue_head_init(&c->others);
	c->owner = ch->applid;
	if (capisim_b3_up(ch)) {
		c->b3_ind = capisim_disconnect_b3_ind(ch, reason_b3);
		if (!c->b3_ind)
			return false;
	}
	if (!plci)
		return true;
	if (ch->pstate == PLCI_INCOMING) {
		/* the first one releases the PLCI, the others have lost it */
		c->owner = find_first_bit(ch->offered, CAPI_MAXAPPL) + 1;
		if (!capisim_offer_end_alloc(ch, c->owner, reason, &c->others))
			return false;
	}
	c->ind = capisim_disconnect_ind_to(ch, c->owner, reason);
	if (!c->ind) {
		__skb_queue_purge(&c->others);
		return false;
	}
	return true;
}

static void capisim_clear_free(struct capisim_clear *c)
{
	kfree_skb(c->b3_ind);
	kfree_skb(c->ind);
	__skb_queue_purge(&c->others);
}

static void capisim_clear_queue(struct capisim_ctrl *cs,
				struct capisim_chan *ch,
				struct capisim_clear *c)
{
	struct sk_buff *skb;

	if (c->b3_ind) {
		capisim_ncci_disconnecting(ch);
		capisim_queue(cs, c->b3_ind);
	}
	if (c->ind) {
		ch->applid = c->owner;
		bitmap_zero(ch->offered, CAPI_MAXAPPL);
		ch->pstate = PLCI_DISCONNECTING;
		capisim_queue(cs, c->ind);
	}
	while ((skb = __skb_dequeue(&c->others)))
		capisim_queue(cs, skb);
}

/*
 * The B3 connection of @ch is cleared: the DATA_B3_CONFs held back in
 * its queue, behind data the window did not let through, go out now.
 * Each DATA_B3_REQ that was accepted is confirmed, also when its data
 * is lost with the connection.
 */
static void capisim_echo_confirm(struct capisim_ctrl *cs,
				 struct capisim_chan *ch)
{
	struct sk_buff *skb, *tmp;

	skb_queue_walk_safe(&ch->echoq, skb, tmp) {
		if (CAPIMSG_SUBCOMMAND(skb->data) != CAPI_CONF)
			continue;
		__skb_unlink(skb, &ch->echoq);
		capisim_echo_uncharge(ch, skb);
		__skb_queue_tail(&cs->txq, skb);
	}
}

/* The peer of @ch on a switched call, while it has a call to clear. */
static struct capisim_chan *capisim_live_peer(struct capisim_chan *ch)
{
	struct capisim_chan *peer = ch->peer;

	if (!peer || peer->pstate == PLCI_FREE ||
	    peer->pstate == PLCI_DISCONNECTING)
		return NULL;
	return peer;
}

/*
 * Clear the call on @ch: queue @conf (a confirmation, or NULL), then
 * DISCONNECT_B3_IND if a B3 connection is up and DISCONNECT_IND with
 * @reason.  On a switched call the peer's side is cleared as well, with
 * @peer_reason, and the two channels part.  When a message cannot be
 * allocated, nothing changes, @conf is freed and false is returned.
 */
static bool capisim_disconnect(struct capisim_ctrl *cs, struct capisim_chan *ch,
			       struct sk_buff *conf, u16 reason,
			       u16 peer_reason)
{
	struct capisim_chan *peer = capisim_live_peer(ch);
	struct capisim_clear mine, theirs;

	if (!capisim_clear_alloc(ch, true, reason, 0, &mine))
		goto nomem;
	if (peer && !capisim_clear_alloc(peer, true, peer_reason, 0, &theirs)) {
		capisim_clear_free(&mine);
		goto nomem;
	}

	capisim_echo_confirm(cs, ch);
	if (peer)
		capisim_echo_confirm(cs, peer);
	if (conf)
		capisim_queue(cs, conf);
	capisim_clear_queue(cs, ch, &mine);
	if (peer) {
		capisim_clear_queue(cs, peer, &theirs);
		peer->peer = NULL;
	}
	ch->peer = NULL;
	return true;

nomem:
	kfree_skb(conf);
	return false;
}

/*
 * Clear the B3 connection on @ch, after @conf (or NULL), and on a
 * switched call the peer's too: DISCONNECT_B3_IND with @reason_b3 on
 * both.  false (and @conf freed) when out of memory.
 */
static bool capisim_disconnect_b3(struct capisim_ctrl *cs,
				  struct capisim_chan *ch,
				  struct sk_buff *conf, u16 reason_b3)
{
	struct capisim_chan *peer = capisim_live_peer(ch);
	struct capisim_clear mine, theirs;

	if (!capisim_clear_alloc(ch, false, 0, reason_b3, &mine))
		goto nomem;
	if (peer && !capisim_clear_alloc(peer, false, 0, reason_b3, &theirs)) {
		capisim_clear_free(&mine);
		goto nomem;
	}
	capisim_echo_confirm(cs, ch);
	if (peer)
		capisim_echo_confirm(cs, peer);
	if (conf)
		capisim_queue(cs, conf);
	capisim_clear_queue(cs, ch, &mine);
	if (peer)
		capisim_clear_queue(cs, peer, &theirs);
	return true;

nomem:
	kfree_skb(conf);
	return false;
}

/* Does @applid own the call on @ch, or is the call offered to it? */
static bool capisim_chan_of(struct capisim_chan *ch, u16 applid)
{
	if (ch->pstate == PLCI_INCOMING)
		return applid && test_bit(applid - 1, ch->offered);
	return ch->applid == applid;
}

/*
 * The channel an application addresses with a PLCI, if it owns one or
 * is offered its call.
 */
static struct capisim_chan *capisim_find_plci(struct capisim_ctrl *cs,
					      u16 applid, u32 adr)
{
	unsigned int i = (adr >> 8) & 0xff;
	struct capisim_chan *ch;

	adr &= ~0x80;		/* internal/external controller flag */
	if (!i || i > cs->nbchan)
		return NULL;
	ch = &cs->chan[i - 1];
	if (ch->pstate == PLCI_FREE || ch->plci != adr ||
	    (applid && !capisim_chan_of(ch, applid)))
		return NULL;
	return ch;
}

static struct capisim_chan *capisim_find_ncci(struct capisim_ctrl *cs,
					      u16 applid, u32 adr)
{
	unsigned int i = (adr >> 8) & 0xff;
	struct capisim_chan *ch;

	adr &= ~0x80;
	if (!i || i > cs->nbchan)
		return NULL;
	ch = &cs->chan[i - 1];
	if (ch->pstate == PLCI_FREE || ch->nstate == NCCI_NONE ||
	    ch->ncci != adr || (applid && ch->applid != applid))
		return NULL;
	return ch;
}

static bool capisim_is_controller(struct capisim_ctrl *cs, u32 adr)
{
	return (adr & ~0x80) == cs->ctr.cnr;
}

static void capisim_spoil(struct sk_buff *skb, enum capisim_malform how)
{
	switch (how) {
	case MALFORM_DATALEN:
		CAPIMSG_SETDATALEN(skb->data, CAPIMSG_DATALEN(skb->data) + 1);
		break;
	case MALFORM_LEN:
		CAPIMSG_SETLEN(skb->data, skb->len + 8);
		break;
	case MALFORM_SHORT:
		skb_trim(skb, CAPIMSG_BASELEN + 8);
		CAPIMSG_SETLEN(skb->data, skb->len);
		break;
	case MALFORM_NONE:
		break;
	}
}

/*
 * A DATA_B3_IND of the flood (debugfs "flood"): flood_len bytes of a
 * counting pattern, not charged to echo_limit (it is never held back).
 */
static struct sk_buff *capisim_flood_ind(struct capisim_chan *ch)
{
	struct sk_buff *skb;
	unsigned int i;

	skb = capisim_msg(ch->applid, CAPI_DATA_B3, CAPI_IND, 0, ch->ncci,
			  ch->flood_len);
	if (!skb)
		return NULL;
	msg_u32(skb, 0);		/* Data: follows the message */
	msg_u16(skb, ch->flood_len);	/* Data length */
	msg_u16(skb, ch->ind_handle++);	/* Data handle */
	msg_u16(skb, 0);		/* Flags */
	CAPIMSG_SETLEN(skb->data, skb->len);
	for (i = 0; i < ch->flood_len; i++)
		skb_put_u8(skb, ch->flood_seq++);
	return skb;
}

/*
 * Send held-back DATA_B3_INDs, then those of a flood, as far as the
 * application's window allows: at most its MaxBDataBlocks without
 * DATA_B3_RESP, and only once its B3 connection is active (it has
 * answered CONNECT_B3_ACTIVE_IND).  On a switched call, the
 * DATA_B3_CONF that follows the last block of a request of the peer goes
 * out with it.
 */
static void capisim_echo_push(struct capisim_ctrl *cs, struct capisim_chan *ch)
{
	struct capisim_appl *ap = capisim_appl(cs, ch->applid);
	struct sk_buff *skb;

	if (!ap)
		return;
	for (;;) {
		skb = skb_peek(&ch->echoq);
		if (skb && CAPIMSG_SUBCOMMAND(skb->data) == CAPI_CONF) {
			__skb_queue_tail(&cs->txq, capisim_echo_dequeue(ch));
			continue;
		}
		if (ch->nstate != NCCI_ACTIVE ||
		    (ch->unacked >= ap->window && !ch->overrun))
			break;
		if (skb) {
			skb = capisim_echo_dequeue(ch);
		} else if (ch->flood) {
			skb = capisim_flood_ind(ch);
			if (!skb) {
				/* the rest of the flood is lost */
				ch->dropped++;
				ch->flood = 0;
				break;
			}
			ch->flood--;
		} else {
			break;
		}
		CAPIMSG_SETMSGID(skb->data, cs->msgnum++);
		ch->rx_frames++;
		ch->rx_bytes += CAPIMSG_DATALEN(skb->data);
		if (ch->unacked >= ap->window) {
			/* past the window (overrun): not counted, its RESP stray */
			ch->overrun--;
		} else if (ch->malform) {
			capisim_spoil(skb, ch->malform);
			ch->malform = MALFORM_NONE;
		} else {
			/* Data handle: the DATA_B3_RESP must name it */
			ch->unacked_handle[ch->unacked++] =
				CAPIMSG_U16(skb->data, 18);
		}
		__skb_queue_tail(&cs->txq, skb);
	}
}

/*
 * DATA_B3_RESP on @ch for @handle: it frees the place of the DATA_B3_IND
 * it answers in the window.  A handle that is not outstanding (never
 * sent, answered already, or that of a malformed DATA_B3_IND) changes
 * nothing; it is counted and logged.
 */
static void capisim_data_b3_resp(struct capisim_ctrl *cs,
				 struct capisim_chan *ch, u16 handle, bool bad)
{
	unsigned int i;

	for (i = 0; !bad && i < ch->unacked; i++) {
		if (ch->unacked_handle[i] != handle)
			continue;
		ch->unacked--;
		memmove(&ch->unacked_handle[i], &ch->unacked_handle[i + 1],
			(ch->unacked - i) * sizeof(ch->unacked_handle[0]));
		capisim_echo_push(cs, ch);
		return;
	}
	cs->stray_resp++;
	pr_warn_ratelimited("ctr%d: DATA_B3_RESP on NCCI 0x%x for data handle %u, not outstanding\n",
			    cs->ctr.cnr, ch->ncci, handle);
}

/*
 * Hold back @len bytes of @data in a DATA_B3_IND for @ch; false (and
 * nothing held back) when its queue is full, when what is held back for
 * its application has reached echo_limit, or when out of memory.
 */
static bool capisim_echo_queue(struct capisim_chan *ch, const u8 *data,
			       unsigned int len)
{
	struct sk_buff *skb;

	if (skb_queue_len(&ch->echoq) >= CAPISIM_ECHOQ_MAX)
		return false;
	skb = capisim_msg(ch->applid, CAPI_DATA_B3, CAPI_IND, 0, ch->ncci, len);
	if (!skb)
		return false;
	if (!capisim_echo_charge(ch, skb)) {
		kfree_skb(skb);
		return false;
	}
	msg_u32(skb, 0);		/* Data: follows the message */
	msg_u16(skb, len);		/* Data length */
	msg_u16(skb, ch->ind_handle++);	/* Data handle */
	msg_u16(skb, 0);		/* Flags */
	CAPIMSG_SETLEN(skb->data, skb->len);
	skb_put_data(skb, data, len);
	__skb_queue_tail(&ch->echoq, skb);
	return true;
}

/*
 * Switched call: the data of a DATA_B3_REQ of @ch goes to the peer, in
 * DATA_B3_INDs of blocks its application accepts, followed by @conf, the
 * DATA_B3_CONF, all behind the peer's window.  -ENOMEM, and nothing
 * queued, when the peer's queue is full, when what is held back for the
 * peer's application has reached echo_limit or when out of memory: the
 * request is refused with "send queue full" and can be sent again.
 */
static int capisim_switch_data(struct capisim_ctrl *cs, struct capisim_chan *ch,
			       struct sk_buff *conf, const u8 *data,
			       unsigned int len)
{
	struct capisim_chan *peer = ch->peer;
	struct capisim_appl *ap = capisim_appl(cs, peer->applid);
	unsigned int n, queued = skb_queue_len(&peer->echoq);
	u16 handle = peer->ind_handle;

	if (!ap || skb_queue_len(&peer->echoq) + DIV_ROUND_UP(len, ap->blklen) +
	    1 > CAPISIM_ECHOQ_MAX)
		goto nomem;
	while (len) {
		n = min(len, ap->blklen);
		if (!capisim_echo_queue(peer, data, n))
			goto nomem;
		data += n;
		len -= n;
	}
	if (!capisim_echo_charge(peer, conf))
		goto nomem;
	CAPIMSG_SETLEN(conf->data, conf->len);
	__skb_queue_tail(&peer->echoq, conf);
	capisim_echo_push(cs, peer);
	return 0;

nomem:
	/* take back what was queued for this request */
	while (skb_queue_len(&peer->echoq) > queued)
		kfree_skb(capisim_echo_unqueue_tail(peer));
	peer->ind_handle = handle;
	kfree_skb(conf);
	return -ENOMEM;
}

/* Hand the data back to the application, in blocks it accepts. */
static void capisim_echo(struct capisim_ctrl *cs, struct capisim_chan *ch,
			 const u8 *data, unsigned int len)
{
	struct capisim_appl *ap = capisim_appl(cs, ch->applid);
	unsigned int n;

	if (!ap)
		return;
	while (len) {
		n = min(len, ap->blklen);
		if (!capisim_echo_queue(ch, data, n)) {
			/* this block and the rest of the data are lost */
			ch->dropped++;
			break;
		}
		data += n;
		len -= n;
	}
	capisim_echo_push(cs, ch);
}

/* -------- requests ---------------------------------------------------- */

/*
 * The handlers below return the Info value of the confirmation, or
 * -ENOMEM.  When the Info value is not CAPISIM_INFO_OK, the caller sends
 * the usual "address, Info" confirmation; a handler that returns
 * CAPISIM_INFO_OK has sent its confirmation (and what follows it)
 * itself.  -ENOMEM means that a message could not be allocated and that
 * nothing has changed; see capisim_handle().
 */

static int capisim_listen_req(struct capisim_ctrl *cs, const u8 *m,
			      struct capisim_req *r)
{
	struct capisim_appl *ap = capisim_appl(cs, CAPIMSG_APPID(m));
	u32 adr = CAPIMSG_CONTROL(m);
	u32 info_mask, cip_mask, cip_mask2;
	unsigned int own_len;
	struct sk_buff *conf;
	const u8 *own;

	info_mask = req_u32(r);
	cip_mask = req_u32(r);
	cip_mask2 = req_u32(r);
	/* its own number: if it names one, it is offered calls to it only */
	own = req_struct(r, &own_len);
	req_skip_structs(r, 1);	/* calling party subaddress */
	if (r->bad)
		return CAPISIM_INFO_ILLEGAL_CODING;
	if (!capisim_is_controller(cs, adr))
		return CAPISIM_INFO_ILLEGAL_ID;
	conf = capisim_conf(m, adr, CAPISIM_INFO_OK);
	if (!conf)
		return -ENOMEM;
	ap->info_mask = info_mask;
	ap->cip_mask = cip_mask;
	ap->cip_mask2 = cip_mask2;
	capisim_number(ap->msn, own, own_len, true);
	capisim_queue(cs, conf);
	return CAPISIM_INFO_OK;
}

static bool capisim_cip_match(struct capisim_appl *ap, u16 cip)
{
	return (ap->cip_mask & BIT(0)) ||
	       (cip < 32 && (ap->cip_mask & BIT(cip)));
}

/*
 * The applications a call to @called with @cip is offered to, into @to:
 * those whose LISTEN_REQ CIP mask takes @cip and that named no number
 * of their own in it, or named @called.  @caller, the application that
 * places the call (0 for the network), is offered its own call only
 * when it named @called.  false when there is none.
 */
static bool capisim_listeners(struct capisim_ctrl *cs, unsigned long *to,
			      const char *called, u16 cip, u16 caller)
{
	struct capisim_appl *ap;
	unsigned int i;

	bitmap_zero(to, CAPI_MAXAPPL);
	for (i = 0; i < CAPI_MAXAPPL; i++) {
		ap = &cs->appl[i];
		if (!ap->registered || !capisim_cip_match(ap, cip))
			continue;
		if (ap->msn[0] ? strcmp(ap->msn, called) : i + 1 == caller)
			continue;
		__set_bit(i, to);
	}
	return !bitmap_empty(to, CAPI_MAXAPPL);
}

/*
 * Offer the call on the free channel @ch to the applications in @to:
 * queue @first (a confirmation, or NULL), then a CONNECT_IND with the
 * same PLCI for each.  false, and nothing changed or queued, when out of
 * memory.
 */
static bool capisim_offer(struct capisim_ctrl *cs, struct capisim_chan *ch,
			  const unsigned long *to, u16 cip, const char *called,
			  const char *calling, struct sk_buff *first)
{
	struct sk_buff_head q;
	struct sk_buff *skb;
	unsigned int i;

	__skb_queue_head_init(&q);
	for_each_set_bit(i, to, CAPI_MAXAPPL) {
		skb = capisim_connect_ind(ch, i + 1, cip, called, calling);
		if (!skb) {
			__skb_queue_purge(&q);
			return false;
		}
		__skb_queue_tail(&q, skb);
	}
	ch->applid = 0;
	bitmap_copy(ch->offered, to, CAPI_MAXAPPL);
	ch->outgoing = false;
	ch->cip = cip;
	strscpy(ch->called, called, sizeof(ch->called));
	strscpy(ch->calling, calling, sizeof(ch->calling));
	ch->pstate = PLCI_INCOMING;
	if (first)
		capisim_queue(cs, first);
	while ((skb = __skb_dequeue(&q)))
		capisim_queue(cs, skb);
	return true;
}

/* The Q.931 cause for the caller when the called party rejects the call. */
static u16 capisim_reject_reason(u16 reject)
{
	static const u8 cause[] = {
		[1] = 18,	/* ignore: no user responding */
		[2] = 16,	/* normal call clearing */
		[3] = 17,	/* user busy */
		[4] = 44,	/* requested circuit/channel not available */
		[5] = 29,	/* facility rejected */
		[6] = 6,	/* channel unacceptable */
		[7] = 88,	/* incompatible destination */
		[8] = 27,	/* destination out of order */
	};

	if (reject < ARRAY_SIZE(cause) && cause[reject])
		return 0x3480 | cause[reject];
	/* 0x34xx: a network cause the application chose, passed on */
	if ((reject & 0xff00) == 0x3400)
		return reject;
	return CAPISIM_REASON_REJECTED;
}

/*
 * @applid does not take the call offered on @ch (CONNECT_RESP with
 * @reject, or DISCONNECT_REQ): it gets DISCONNECT_IND with @reason (0,
 * or why capisim refused its answer), after @conf (a confirmation, or
 * NULL).  While the call is still offered to others, it
 * stays theirs; without them it is cleared, and the caller gets the
 * cause of a rejection rather than of an "ignore" (1) if there was one.
 * false, nothing changed and @conf freed when out of memory.
 */
static bool capisim_refuse(struct capisim_ctrl *cs, struct capisim_chan *ch,
			   u16 applid, u16 reject, u16 reason,
			   struct sk_buff *conf)
{
	struct sk_buff *ind;

	if (bitmap_weight(ch->offered, CAPI_MAXAPPL) > 1) {
		ind = capisim_disconnect_ind_to(ch, applid, reason);
		if (!ind) {
			kfree_skb(conf);
			return false;
		}
		__clear_bit(applid - 1, ch->offered);
		if (reject != 1)
			ch->reject = reject;
		if (conf)
			capisim_queue(cs, conf);
		capisim_queue(cs, ind);
		return true;
	}
	if (reject == 1 && ch->reject)
		reject = ch->reject;
	return capisim_disconnect(cs, ch, conf, reason,
				  capisim_reject_reason(reject));
}

static unsigned long capisim_answer_jiffies(void)
{
	return clamp_t(unsigned int, READ_ONCE(answer_timeout), 1, 3600) * HZ;
}

/*
 * CONNECT_REQ to a number applications listen on (@to): offer the call
 * to them on a second channel, with CONNECT_IND, and let the caller wait
 * for their answer.  With no channel left for them, the caller gets
 * "user busy".
 */
static int capisim_switch_call(struct capisim_ctrl *cs, const u8 *m,
			       struct capisim_chan *ch, const unsigned long *to,
			       u16 cip)
{
	struct capisim_appl *ap = capisim_appl(cs, ch->applid);
	struct sk_buff *conf, *busy = NULL;
	struct capisim_chan *peer;

	/* the caller's own number when it gives none */
	if (!ch->calling[0])
		strscpy(ch->calling, ap->msn, sizeof(ch->calling));
	ch->pstate = PLCI_OUTGOING;	/* so that the callee gets another */
	peer = capisim_chan_alloc(cs, 0);
	ch->pstate = PLCI_FREE;

	conf = capisim_conf(m, ch->plci, CAPISIM_INFO_OK);
	if (!peer)
		busy = capisim_disconnect_ind(ch, CAPISIM_REASON_BUSY);
	if (!conf || (!peer && !busy) ||
	    (peer && !capisim_offer(cs, peer, to, cip, ch->called,
				    ch->calling, conf))) {
		kfree_skb(conf);
		kfree_skb(busy);
		return -ENOMEM;		/* the channels are still free */
	}
	if (!peer) {
		capisim_queue(cs, conf);
		ch->pstate = PLCI_DISCONNECTING;
		capisim_queue(cs, busy);
		return CAPISIM_INFO_OK;
	}
	ch->pstate = PLCI_OUTGOING;
	peer->peer = ch;
	ch->peer = peer;
	ch->answer_deadline = jiffies + capisim_answer_jiffies();
	mod_timer(&ch->answer_timer, ch->answer_deadline);
	return CAPISIM_INFO_OK;
}

static int capisim_connect_req(struct capisim_ctrl *cs, const u8 *m,
			       struct capisim_req *r)
{
	unsigned int called_len, calling_len, bprot_len;
	const u8 *called, *calling, *bprot;
	char number[CAPISIM_NUM_LEN + 1];
	DECLARE_BITMAP(to, CAPI_MAXAPPL);
	struct sk_buff *conf, *ind;
	struct capisim_chan *ch;
	u16 cip, info;

	cip = req_u16(r);
	called = req_struct(r, &called_len);
	calling = req_struct(r, &calling_len);
	req_skip_structs(r, 2);	/* called, calling party subaddress */
	bprot = req_struct(r, &bprot_len);
	req_skip_structs(r, 4);	/* BC, LLC, HLC, additional info */
	if (r->bad)
		return CAPISIM_INFO_ILLEGAL_CODING;
	if (!capisim_is_controller(cs, CAPIMSG_CONTROL(m)))
		return CAPISIM_INFO_ILLEGAL_ID;
	info = capisim_check_bprotocol(bprot, bprot_len);
	if (info)
		return info;
	ch = capisim_chan_alloc(cs, CAPIMSG_APPID(m));
	if (!ch)
		return CAPISIM_INFO_OUT_OF_PLCI;

	capisim_number(number, called, called_len, false);
	if (capisim_listeners(cs, to, number, cip, CAPIMSG_APPID(m))) {
		ch->outgoing = true;
		ch->cip = cip;
		strscpy(ch->called, number, sizeof(ch->called));
		capisim_number(ch->calling, calling, calling_len, true);
		return capisim_switch_call(cs, m, ch, to, cip);
	}

	conf = capisim_conf(m, ch->plci, CAPISIM_INFO_OK);
	/* the network connects the call at once */
	ind = capisim_connect_active_ind(ch);
	if (!conf || !ind) {
		kfree_skb(conf);
		kfree_skb(ind);
		return -ENOMEM;		/* the channel is still free */
	}
	ch->outgoing = true;
	ch->cip = cip;
	capisim_number(ch->called, called, called_len, false);
	capisim_number(ch->calling, calling, calling_len, true);
	ch->pstate = PLCI_WAIT_ACTIVE;
	capisim_queue(cs, conf);
	capisim_queue(cs, ind);
	return CAPISIM_INFO_OK;
}

static int capisim_alert_req(struct capisim_ctrl *cs, const u8 *m,
			     struct capisim_req *r)
{
	struct capisim_chan *ch;
	struct sk_buff *conf;
	u16 info = CAPISIM_INFO_OK;

	req_skip_structs(r, 1);	/* additional info */
	if (r->bad)
		return CAPISIM_INFO_ILLEGAL_CODING;
	ch = capisim_find_plci(cs, CAPIMSG_APPID(m), CAPIMSG_CONTROL(m));
	if (!ch)
		return CAPISIM_INFO_ILLEGAL_ID;
	if (ch->pstate != PLCI_INCOMING)
		return CAPISIM_INFO_WRONG_STATE;
	if (ch->alerted)
		info = CAPISIM_INFO_ALREADY_ALERTED;	/* informative only */
	conf = capisim_conf(m, CAPIMSG_CONTROL(m), info);
	if (!conf)
		return -ENOMEM;
	ch->alerted = true;
	capisim_queue(cs, conf);
	return CAPISIM_INFO_OK;
}

static int capisim_select_b_req(struct capisim_ctrl *cs, const u8 *m,
				struct capisim_req *r)
{
	struct capisim_chan *ch;
	struct sk_buff *conf;
	unsigned int len;
	const u8 *bprot;
	u16 info;

	bprot = req_struct(r, &len);
	if (r->bad)
		return CAPISIM_INFO_ILLEGAL_CODING;
	ch = capisim_find_plci(cs, CAPIMSG_APPID(m), CAPIMSG_CONTROL(m));
	if (!ch)
		return CAPISIM_INFO_ILLEGAL_ID;
	if (ch->pstate != PLCI_ACTIVE || ch->nstate != NCCI_NONE)
		return CAPISIM_INFO_WRONG_STATE;
	info = capisim_check_bprotocol(bprot, len);
	if (info)
		return info;
	conf = capisim_conf(m, ch->plci, CAPISIM_INFO_OK);
	if (!conf)
		return -ENOMEM;
	capisim_queue(cs, conf);
	return CAPISIM_INFO_OK;
}

/*
 * CONNECT_B3_REQ on a switched call: the peer gets CONNECT_B3_IND and
 * decides with its CONNECT_B3_RESP.  The peer must be connected too and
 * have no B3 connection; otherwise the request is refused with "out of
 * NCCI", as when its application may not have another one.
 */
static int capisim_switch_b3(struct capisim_ctrl *cs, const u8 *m,
			     struct capisim_chan *ch, u32 ncci)
{
	struct capisim_chan *peer = ch->peer;
	struct sk_buff *conf, *ind;

	if (peer->pstate != PLCI_ACTIVE && peer->pstate != PLCI_WAIT_ACTIVE)
		return CAPISIM_INFO_WRONG_STATE;
	if (!capisim_ncci_alloc(cs, peer))
		return CAPISIM_INFO_OUT_OF_NCCI;
	conf = capisim_conf(m, ncci, CAPISIM_INFO_OK);
	ind = capisim_connect_b3_ind(peer);
	if (!conf || !ind) {
		kfree_skb(conf);
		kfree_skb(ind);
		return -ENOMEM;
	}
	capisim_ncci_start(cs, ch, NCCI_OUTGOING);
	capisim_ncci_start(cs, peer, NCCI_INCOMING);
	capisim_queue(cs, conf);
	capisim_queue(cs, ind);
	return CAPISIM_INFO_OK;
}

static int capisim_connect_b3_req(struct capisim_ctrl *cs, const u8 *m,
				  struct capisim_req *r)
{
	struct sk_buff *conf, *ind;
	struct capisim_chan *ch;
	u32 ncci;

	req_skip_structs(r, 1);	/* NCPI */
	if (r->bad)
		return CAPISIM_INFO_ILLEGAL_CODING;
	ch = capisim_find_plci(cs, CAPIMSG_APPID(m), CAPIMSG_CONTROL(m));
	if (!ch)
		return CAPISIM_INFO_ILLEGAL_ID;
	if (ch->pstate != PLCI_ACTIVE)
		return CAPISIM_INFO_WRONG_STATE;
	ncci = capisim_ncci_alloc(cs, ch);
	if (!ncci)
		return CAPISIM_INFO_OUT_OF_NCCI;
	if (ch->peer)
		return capisim_switch_b3(cs, m, ch, ncci);
	/* kernelcapi sets up the NCCI (and its tty) on this confirmation */
	conf = capisim_conf(m, ncci, CAPISIM_INFO_OK);
	ind = capisim_b3_active_ind(ch);
	if (!conf || !ind) {
		kfree_skb(conf);
		kfree_skb(ind);
		return -ENOMEM;
	}
	capisim_ncci_start(cs, ch, NCCI_WAIT_ACTIVE);
	capisim_queue(cs, conf);
	capisim_queue(cs, ind);
	return CAPISIM_INFO_OK;
}

/* DATA_B3_CONF also carries the data handle: always confirmed here. */
static int capisim_data_b3_req(struct capisim_ctrl *cs, const u8 *m,
			       unsigned int skblen, struct capisim_req *r)
{
	u32 adr = CAPIMSG_CONTROL(m);
	struct capisim_chan *ch;
	u16 len, handle, info;
	struct sk_buff *conf;

	req_u32(r);		/* Data: a pointer, the data follows */
	len = req_u16(r);
	handle = req_u16(r);
	req_u16(r);		/* Flags */
	ch = capisim_find_ncci(cs, CAPIMSG_APPID(m), adr);
	if (ch && ch->sendqueuefull) {
		/* "send queue full", nothing done: the request can come again */
		ch->sendqueuefull--;
		return -ENOMEM;
	}
	if (r->bad || skblen - r->len < len)
		info = CAPISIM_INFO_ILLEGAL_CODING;
	else if (!ch)
		info = CAPISIM_INFO_ILLEGAL_ID;
	else if (ch->nstate != NCCI_ACTIVE)
		/* also before CONNECT_B3_ACTIVE_RESP */
		info = CAPISIM_INFO_WRONG_STATE;
	else if (ch->peer && ch->peer->nstate != NCCI_ACTIVE &&
		 ch->peer->nstate != NCCI_WAIT_ACTIVE)
		info = CAPISIM_INFO_WRONG_STATE;
	else if (len > CAPISIM_MAX_B3_DATA)
		info = CAPISIM_INFO_DATA_LENGTH;
	else
		info = CAPISIM_INFO_OK;

	conf = capisim_msg(CAPIMSG_APPID(m), CAPI_DATA_B3, CAPI_CONF,
			   CAPIMSG_MSGID(m), adr, 0);
	if (!conf)
		return -ENOMEM;
	msg_u16(conf, handle);
	msg_u16(conf, info);
	if (info == CAPISIM_INFO_OK && ch->peer) {
		/* confirmed once the peer has taken the data */
		if (capisim_switch_data(cs, ch, conf, m + r->len, len))
			return -ENOMEM;
		ch->tx_frames++;
		ch->tx_bytes += len;
		return CAPISIM_INFO_OK;
	}
	capisim_queue(cs, conf);
	if (info == CAPISIM_INFO_OK) {
		ch->tx_frames++;
		ch->tx_bytes += len;
		if (len)
			capisim_echo(cs, ch, m + r->len, len);
	}
	return CAPISIM_INFO_OK;
}

static int capisim_disconnect_b3_req(struct capisim_ctrl *cs, const u8 *m,
				     struct capisim_req *r)
{
	struct sk_buff *conf;
	struct capisim_chan *ch;

	req_skip_structs(r, 1);	/* NCPI */
	if (r->bad)
		return CAPISIM_INFO_ILLEGAL_CODING;
	ch = capisim_find_ncci(cs, CAPIMSG_APPID(m), CAPIMSG_CONTROL(m));
	if (!ch)
		return CAPISIM_INFO_ILLEGAL_ID;
	if (ch->nstate == NCCI_DISCONNECTING)
		return CAPISIM_INFO_WRONG_STATE;
	conf = capisim_conf(m, ch->ncci, CAPISIM_INFO_OK);
	if (!conf || !capisim_disconnect_b3(cs, ch, conf, 0))
		return -ENOMEM;
	return CAPISIM_INFO_OK;
}

static int capisim_disconnect_req(struct capisim_ctrl *cs, const u8 *m,
				  struct capisim_req *r)
{
	struct capisim_chan *ch;
	struct sk_buff *conf;

	req_skip_structs(r, 1);	/* additional info */
	if (r->bad)
		return CAPISIM_INFO_ILLEGAL_CODING;
	ch = capisim_find_plci(cs, CAPIMSG_APPID(m), CAPIMSG_CONTROL(m));
	if (!ch)
		return CAPISIM_INFO_ILLEGAL_ID;
	if (ch->pstate == PLCI_DISCONNECTING)
		return CAPISIM_INFO_WRONG_STATE;
	conf = capisim_conf(m, ch->plci, CAPISIM_INFO_OK);
	if (!conf)
		return -ENOMEM;
	/* on a call offered to several, it hangs up for itself only */
	if (ch->pstate == PLCI_INCOMING)
		return capisim_refuse(cs, ch, CAPIMSG_APPID(m), 2, 0, conf) ?
			CAPISIM_INFO_OK : -ENOMEM;
	if (!capisim_disconnect(cs, ch, conf, 0, CAPISIM_REASON_REMOTE))
		return -ENOMEM;
	return CAPISIM_INFO_OK;
}

static int capisim_info_req(struct capisim_ctrl *cs, const u8 *m,
			    struct capisim_req *r)
{
	u32 adr = CAPIMSG_CONTROL(m);
	struct sk_buff *conf;

	req_skip_structs(r, 2);	/* called party number, additional info */
	if (r->bad)
		return CAPISIM_INFO_ILLEGAL_CODING;
	if (!capisim_is_controller(cs, adr) &&
	    !capisim_find_plci(cs, CAPIMSG_APPID(m), adr))
		return CAPISIM_INFO_ILLEGAL_ID;
	conf = capisim_conf(m, adr, CAPISIM_INFO_OK);
	if (!conf)
		return -ENOMEM;
	capisim_queue(cs, conf);
	return CAPISIM_INFO_OK;
}

/* FACILITY_CONF has more than "address, Info": always confirmed here. */
static int capisim_facility_req(struct capisim_ctrl *cs, const u8 *m,
				struct capisim_req *r)
{
	u32 adr = CAPIMSG_CONTROL(m);
	struct sk_buff *conf;
	u16 selector, info;

	selector = req_u16(r);
	req_skip_structs(r, 1);	/* facility request parameter */
	if (r->bad)
		info = CAPISIM_INFO_ILLEGAL_CODING;
	else if (!capisim_is_controller(cs, adr) &&
		 !capisim_find_plci(cs, CAPIMSG_APPID(m), adr) &&
		 !capisim_find_ncci(cs, CAPIMSG_APPID(m), adr))
		info = CAPISIM_INFO_ILLEGAL_ID;
	else
		info = CAPISIM_INFO_NO_FACILITY;

	conf = capisim_msg(CAPIMSG_APPID(m), CAPI_FACILITY, CAPI_CONF,
			   CAPIMSG_MSGID(m), adr, 0);
	if (!conf)
		return -ENOMEM;
	msg_u16(conf, info);
	msg_u16(conf, selector);
	msg_empty(conf, 1);	/* facility confirmation parameter */
	capisim_queue(cs, conf);
	return CAPISIM_INFO_OK;
}

static int capisim_reset_b3_req(struct capisim_ctrl *cs, const u8 *m,
				struct capisim_req *r)
{
	struct capisim_chan *ch;

	req_skip_structs(r, 1);	/* NCPI */
	if (r->bad)
		return CAPISIM_INFO_ILLEGAL_CODING;
	ch = capisim_find_ncci(cs, CAPIMSG_APPID(m), CAPIMSG_CONTROL(m));
	if (!ch)
		return CAPISIM_INFO_ILLEGAL_ID;
	if (ch->nstate != NCCI_ACTIVE)
		return CAPISIM_INFO_WRONG_STATE;
	/* transparent B3 has no reset procedure */
	return CAPISIM_INFO_NO_RESET;
}

/* MANUFACTURER_CONF has no Info: always answered here, with no data. */
static int capisim_manufacturer_req(struct capisim_ctrl *cs, const u8 *m,
				    struct capisim_req *r)
{
	u32 manu_id, class, function;
	struct sk_buff *conf;

	manu_id = req_u32(r);
	class = req_u32(r);
	function = req_u32(r);
	conf = capisim_msg(CAPIMSG_APPID(m), CAPI_MANUFACTURER, CAPI_CONF,
			   CAPIMSG_MSGID(m), CAPIMSG_CONTROL(m), 0);
	if (!conf)
		return -ENOMEM;
	msg_u32(conf, manu_id);
	msg_u32(conf, class);
	msg_u32(conf, function);
	msg_empty(conf, 1);	/* manufacturer specific data */
	capisim_queue(cs, conf);
	return CAPISIM_INFO_OK;
}

/* -------- responses --------------------------------------------------- */

/* Like the request handlers: 0, or -ENOMEM with nothing changed. */

static int capisim_connect_resp(struct capisim_ctrl *cs, const u8 *m,
				struct capisim_req *r)
{
	struct sk_buff *ind, *peer_ind = NULL, *skb;
	u16 reject, applid = CAPIMSG_APPID(m);
	struct capisim_chan *ch, *peer;
	struct sk_buff_head others;
	unsigned int bprot_len;
	const u8 *bprot;
	u16 info;

	reject = req_u16(r);
	bprot = req_struct(r, &bprot_len);
	ch = capisim_find_plci(cs, applid, CAPIMSG_CONTROL(m));
	if (r->bad || !ch || ch->pstate != PLCI_INCOMING)
		return 0;
	if (reject)
		return capisim_refuse(cs, ch, applid, reject, 0, NULL) ?
			0 : -ENOMEM;
	/*
	 * Accepted with B protocols capisim cannot carry (fax, modem, ...):
	 * the answer cannot be carried out, a CONNECT_RESP has no
	 * confirmation, so the application gets DISCONNECT_IND with the
	 * Info value as its reason, and the call is refused for it as with
	 * reject 7, "incompatible destination".
	 */
	info = capisim_check_bprotocol(bprot, bprot_len);
	if (info)
		return capisim_refuse(cs, ch, applid, 7, info, NULL) ?
			0 : -ENOMEM;
	/* the first to accept gets the call, the others lose it */
	__skb_queue_head_init(&others);
	if (!capisim_offer_end_alloc(ch, applid, CAPISIM_REASON_OTHER_APPL,
				     &others))
		return -ENOMEM;
	peer = capisim_live_peer(ch);
	ind = capisim_ind(applid, CAPI_CONNECT_ACTIVE, ch->plci);
	msg_empty(ind, 3);	/* connected number, subaddress, LLC */
	if (peer)
		peer_ind = capisim_connect_active_ind(peer);
	if (!ind || (peer && !peer_ind)) {
		kfree_skb(ind);
		kfree_skb(peer_ind);
		__skb_queue_purge(&others);
		return -ENOMEM;
	}
	ch->applid = applid;
	bitmap_zero(ch->offered, CAPI_MAXAPPL);
	ch->pstate = PLCI_WAIT_ACTIVE;
	capisim_queue(cs, ind);
	while ((skb = __skb_dequeue(&others)))
		capisim_queue(cs, skb);
	if (peer) {
		del_timer(&peer->answer_timer);
		peer->pstate = PLCI_WAIT_ACTIVE;
		capisim_queue(cs, peer_ind);
	}
	return 0;
}

static int capisim_connect_b3_resp(struct capisim_ctrl *cs, const u8 *m,
				   struct capisim_req *r)
{
	struct sk_buff *ind, *peer_ind = NULL;
	struct capisim_chan *ch, *peer;
	u16 reject;

	reject = req_u16(r);
	ch = capisim_find_ncci(cs, CAPIMSG_APPID(m), CAPIMSG_CONTROL(m));
	if (r->bad || !ch || ch->nstate != NCCI_INCOMING)
		return 0;
	if (reject)
		return capisim_disconnect_b3(cs, ch, NULL, 0) ? 0 : -ENOMEM;
	peer = capisim_live_peer(ch);
	if (peer && peer->nstate != NCCI_OUTGOING)
		peer = NULL;
	ind = capisim_b3_active_ind(ch);
	if (peer)
		peer_ind = capisim_b3_active_ind(peer);
	if (!ind || (peer && !peer_ind)) {
		kfree_skb(ind);
		kfree_skb(peer_ind);
		return -ENOMEM;
	}
	ch->nstate = NCCI_WAIT_ACTIVE;
	capisim_queue(cs, ind);
	if (peer) {
		peer->nstate = NCCI_WAIT_ACTIVE;
		capisim_queue(cs, peer_ind);
	}
	return 0;
}

static int capisim_resp(struct capisim_ctrl *cs, const u8 *m,
			struct capisim_req *r)
{
	u16 applid = CAPIMSG_APPID(m);
	u32 adr = CAPIMSG_CONTROL(m);
	struct capisim_chan *ch;
	u16 handle;

	switch (CAPIMSG_COMMAND(m)) {
	case CAPI_CONNECT:
		return capisim_connect_resp(cs, m, r);
	case CAPI_CONNECT_ACTIVE:
		ch = capisim_find_plci(cs, applid, adr);
		if (ch && ch->pstate == PLCI_WAIT_ACTIVE)
			ch->pstate = PLCI_ACTIVE;
		break;
	case CAPI_CONNECT_B3:
		return capisim_connect_b3_resp(cs, m, r);
	case CAPI_CONNECT_B3_ACTIVE:
		ch = capisim_find_ncci(cs, applid, adr);
		if (ch && ch->nstate == NCCI_WAIT_ACTIVE) {
			ch->nstate = NCCI_ACTIVE;
			/* data that waited for this answer goes out now */
			capisim_echo_push(cs, ch);
		}
		break;
	case CAPI_DATA_B3:
		handle = req_u16(r);
		ch = capisim_find_ncci(cs, applid, adr);
		if (ch)
			capisim_data_b3_resp(cs, ch, handle, r->bad);
		break;
	case CAPI_DISCONNECT_B3:
		ch = capisim_find_ncci(cs, applid, adr);
		if (ch && ch->nstate == NCCI_DISCONNECTING)
			capisim_ncci_free(cs, ch);
		break;
	case CAPI_DISCONNECT:
		ch = capisim_find_plci(cs, applid, adr);
		if (ch && ch->pstate == PLCI_DISCONNECTING)
			capisim_chan_free(cs, ch);
		break;
	default:
		/* INFO, FACILITY, RESET_B3, MANUFACTURER, ...: nothing to do */
		break;
	}
	return 0;
}

/* -------- the network's timer ----------------------------------------- */

/*
 * A switched call not answered within answer_timeout seconds is given
 * up: "no answer from user" if the callee has sent ALERT_REQ, "no user
 * responding" if not, for both sides.
 */
static void capisim_answer_timeout(struct timer_list *t)
{
	struct capisim_chan *ch = from_timer(ch, t, answer_timer);
	struct capisim_ctrl *cs = ch->cs;
	struct capisim_chan *peer;
	unsigned long flags;
	bool kick = false;
	u16 reason;

	spin_lock_irqsave(&cs->lock, flags);
	peer = capisim_live_peer(ch);
	if (ch->pstate == PLCI_OUTGOING && peer &&
	    time_after_eq(jiffies, ch->answer_deadline)) {
		reason = peer->alerted ? CAPISIM_REASON_NO_ANSWER :
					 CAPISIM_REASON_NO_USER;
		kick = capisim_disconnect(cs, ch, NULL, reason, reason);
		if (!kick)	/* out of memory: try again soon */
			mod_timer(&ch->answer_timer, jiffies + HZ / 10);
	}
	spin_unlock_irqrestore(&cs->lock, flags);
	if (kick)
		schedule_work(&cs->tx_work);
}

/*
 * The application is gone, or registers anew: its calls end without
 * messages for it, and the other sides of its switched calls are
 * cleared as by a remote hangup.
 */
static void capisim_drop_calls(struct capisim_ctrl *cs, u16 applid)
{
	struct capisim_chan *ch, *peer;
	unsigned int i;

	for (i = 0; i < cs->nbchan; i++) {
		ch = &cs->chan[i];
		if (ch->pstate == PLCI_FREE || !capisim_chan_of(ch, applid))
			continue;
		if (ch->pstate == PLCI_INCOMING) {
			/* the call stays offered to the others */
			__clear_bit(applid - 1, ch->offered);
			if (!bitmap_empty(ch->offered, CAPI_MAXAPPL))
				continue;
			ch->applid = applid;
		}
		peer = capisim_live_peer(ch);
		ch->peer = NULL;
		if (peer) {
			peer->peer = NULL;
			/* what the peer sent to it is confirmed all the same */
			capisim_echo_confirm(cs, ch);
			if (!capisim_disconnect(cs, peer, NULL,
						CAPISIM_REASON_REMOTE, 0)) {
				/* its application can still clear it */
				capisim_echo_purge(peer);
				pr_warn_ratelimited("ctr%d: no memory to clear PLCI 0x%x\n",
						    cs->ctr.cnr, peer->plci);
			}
		}
		capisim_chan_free(cs, ch);
	}
}

/* -------- interface to kernelcapi -------------------------------------- */

static void capisim_tx_work(struct work_struct *work)
{
	struct capisim_ctrl *cs = container_of(work, struct capisim_ctrl,
					       tx_work);
	struct sk_buff *skb;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&cs->lock, flags);
		skb = __skb_dequeue(&cs->txq);
		spin_unlock_irqrestore(&cs->lock, flags);
		if (!skb)
			break;
		capi_ctr_handle_message(&cs->ctr, CAPIMSG_APPID(skb->data), skb);
	}
}

/*
 * Called with cs->lock held; returns a CAPI_PUT_MESSAGE result.  When a
 * message that answers the request or response cannot be allocated,
 * nothing has changed, and the message is refused with "send queue full"
 * rather than taken without an answer: the application learns that it
 * was not carried out and can send it again.  kernelcapi's tty code does
 * just that with a DATA_B3_REQ refused so.
 */
static u16 capisim_handle(struct capisim_ctrl *cs, struct sk_buff *skb)
{
	const u8 *m = skb->data;
	unsigned int mlen = CAPIMSG_LEN(m);
	struct capisim_req r = { .p = m, .len = mlen, .pos = 12 };
	u8 subcmd = CAPIMSG_SUBCOMMAND(m);
	struct sk_buff *conf;
	int ret;

	if (!capisim_appl(cs, CAPIMSG_APPID(m)))
		return CAPI_ILLAPPNR;
	if (mlen < 12 || mlen > skb->len) {
		/* the parameters cannot be trusted: answer a request anyway */
		if (subcmd != CAPI_REQ)
			return CAPI_NOERROR;
		r.len = 12;
		r.bad = true;
	}

	if (subcmd == CAPI_RESP)
		return capisim_resp(cs, m, &r) ? CAPI_SENDQUEUEFULL : CAPI_NOERROR;
	if (subcmd != CAPI_REQ)
		return CAPI_ILLCMDORSUBCMDORMSGTOSMALL;

	switch (CAPIMSG_COMMAND(m)) {
	case CAPI_LISTEN:
		ret = capisim_listen_req(cs, m, &r);
		break;
	case CAPI_CONNECT:
		ret = capisim_connect_req(cs, m, &r);
		break;
	case CAPI_ALERT:
		ret = capisim_alert_req(cs, m, &r);
		break;
	case CAPI_SELECT_B_PROTOCOL:
		ret = capisim_select_b_req(cs, m, &r);
		break;
	case CAPI_CONNECT_B3:
		ret = capisim_connect_b3_req(cs, m, &r);
		break;
	case CAPI_DATA_B3:
		ret = capisim_data_b3_req(cs, m, skb->len, &r);
		break;
	case CAPI_DISCONNECT_B3:
		ret = capisim_disconnect_b3_req(cs, m, &r);
		break;
	case CAPI_DISCONNECT:
		ret = capisim_disconnect_req(cs, m, &r);
		break;
	case CAPI_INFO:
		ret = capisim_info_req(cs, m, &r);
		break;
	case CAPI_FACILITY:
		ret = capisim_facility_req(cs, m, &r);
		break;
	case CAPI_RESET_B3:
		ret = capisim_reset_b3_req(cs, m, &r);
		break;
	case CAPI_MANUFACTURER:
		ret = capisim_manufacturer_req(cs, m, &r);
		break;
	default:
		/* CONNECT_ACTIVE, CONNECT_B3_ACTIVE, ...: there is no such REQ */
		return CAPI_ILLCMDORSUBCMDORMSGTOSMALL;
	}
	if (ret > 0) {
		/* the request is refused with Info @ret */
		conf = capisim_conf(m, CAPIMSG_CONTROL(m), ret);
		if (conf)
			capisim_queue(cs, conf);
		else
			ret = -ENOMEM;
	}
	return ret < 0 ? CAPI_SENDQUEUEFULL : CAPI_NOERROR;
}

static u16 capisim_send_message(struct capi_ctr *ctr, struct sk_buff *skb)
{
	struct capisim_ctrl *cs = to_capisim(ctr);
	unsigned long flags;
	bool kick;
	u16 ret;

	spin_lock_irqsave(&cs->lock, flags);
	ret = capisim_handle(cs, skb);
	kick = !skb_queue_empty(&cs->txq);
	spin_unlock_irqrestore(&cs->lock, flags);

	if (kick)
		schedule_work(&cs->tx_work);
	if (ret == CAPI_NOERROR)
		consume_skb(skb);
	return ret;
}

static void capisim_register_appl(struct capi_ctr *ctr, u16 applid,
				  capi_register_params *rp)
{
	struct capisim_ctrl *cs = to_capisim(ctr);
	struct capisim_appl *ap;
	unsigned long flags;
	bool kick;

	if (applid < 1 || applid > CAPI_MAXAPPL)
		return;

	spin_lock_irqsave(&cs->lock, flags);
	/* a stale registration of the same id (controller was down) */
	capisim_drop_calls(cs, applid);
	kick = !skb_queue_empty(&cs->txq);
	ap = &cs->appl[applid - 1];
	memset(ap, 0, sizeof(*ap));
	ap->registered = true;
	ap->level3cnt = rp->level3cnt;
	ap->window = clamp_t(u32, rp->datablkcnt, 1, CAPISIM_MAX_WINDOW);
	ap->blklen = clamp_t(u32, rp->datablklen, 1, CAPISIM_MAX_B3_DATA);
	spin_unlock_irqrestore(&cs->lock, flags);
	if (kick)
		schedule_work(&cs->tx_work);
}

static void capisim_release_appl(struct capi_ctr *ctr, u16 applid)
{
	struct capisim_ctrl *cs = to_capisim(ctr);
	struct sk_buff_head drop;
	struct sk_buff *skb, *tmp;
	unsigned long flags;
	bool kick;

	if (applid < 1 || applid > CAPI_MAXAPPL)
		return;

	__skb_queue_head_init(&drop);
	spin_lock_irqsave(&cs->lock, flags);
	/* the application is gone: its calls end without messages */
	capisim_drop_calls(cs, applid);
	memset(&cs->appl[applid - 1], 0, sizeof(cs->appl[0]));
	skb_queue_walk_safe(&cs->txq, skb, tmp) {
		if (CAPIMSG_APPID(skb->data) == applid) {
			__skb_unlink(skb, &cs->txq);
			__skb_queue_tail(&drop, skb);
		}
	}
	/* what is left is for the peers of its switched calls */
	kick = !skb_queue_empty(&cs->txq);
	spin_unlock_irqrestore(&cs->lock, flags);

	__skb_queue_purge(&drop);
	if (kick)
		schedule_work(&cs->tx_work);
	/* nothing for this application may be on its way any more */
	flush_work(&cs->tx_work);
}

static char *capisim_procinfo(struct capi_ctr *ctr)
{
	return to_capisim(ctr)->procinfo;
}

static int capisim_proc_show(struct seq_file *m, void *v)
{
	struct capi_ctr *ctr = m->private;
	struct capisim_ctrl *cs = to_capisim(ctr);
	unsigned int i, used = 0;
	unsigned long flags;

	spin_lock_irqsave(&cs->lock, flags);
	for (i = 0; i < cs->nbchan; i++)
		if (cs->chan[i].pstate != PLCI_FREE)
			used++;
	spin_unlock_irqrestore(&cs->lock, flags);

	seq_printf(m, "%-16s %s\n", "name", ctr->name);
	seq_printf(m, "%-16s %u\n", "b-channels", cs->nbchan);
	seq_printf(m, "%-16s %u\n", "connections", used);
	return 0;
}

/* -------- debugfs: the network side ----------------------------------- */

/*
 * Copy a command of at most @size - 1 characters from user space to @buf
 * and split it into at most @max words, at @argv; returns the number of
 * words or an error.
 */
static int capisim_get_cmd(const char __user *ubuf, size_t count,
			   char *buf, size_t size, char **argv, int max)
{
	char *s;
	int n = 0;

	if (!count || count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	for (s = skip_spaces(buf); *s; s = skip_spaces(s)) {
		if (n == max)
			return -EINVAL;
		argv[n++] = s;
		while (*s && !isspace(*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

/* A number in C notation (0x101, 257, ...) that is at most @max. */
static bool capisim_get_num(const char *s, u32 max, u32 *val)
{
	return !kstrtou32(s, 0, val) && *val <= max;
}

static bool capisim_valid_number(const char *s)
{
	if (strlen(s) > CAPISIM_NUM_LEN)
		return false;
	for (; *s; s++)
		if (!isdigit(*s) && *s != '*' && *s != '#')
			return false;
	return true;
}

/* "CALLED [CALLING [CIP]]": an incoming call from the network. */
static ssize_t capisim_incoming_write(struct file *file,
				      const char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	struct capisim_ctrl *cs = file->private_data;
	DECLARE_BITMAP(to, CAPI_MAXAPPL);
	const char *called, *calling;
	char buf[96], *argv[3];
	struct capisim_chan *ch;
	unsigned long flags;
	u32 cip = 2;		/* unrestricted digital information */
	ssize_t ret;
	int n;

	n = capisim_get_cmd(ubuf, count, buf, sizeof(buf), argv,
			    ARRAY_SIZE(argv));
	if (n < 0)
		return n;
	if (n < 1)
		return -EINVAL;
	called = argv[0];
	calling = n > 1 ? argv[1] : "";
	if (!capisim_valid_number(called) || !capisim_valid_number(calling))
		return -EINVAL;
	if (n > 2 && !capisim_get_num(argv[2], U16_MAX, &cip))
		return -EINVAL;

	spin_lock_irqsave(&cs->lock, flags);
	ch = capisim_chan_alloc(cs, 0);
	if (!capisim_listeners(cs, to, called, cip, 0))
		ret = -ENOENT;
	else if (!ch)
		ret = -EBUSY;
	else if (!capisim_offer(cs, ch, to, cip, called, calling, NULL))
		ret = -ENOMEM;		/* the channel is still free */
	else
		ret = count;
	spin_unlock_irqrestore(&cs->lock, flags);
	if (ret > 0)
		schedule_work(&cs->tx_work);
	return ret;
}

/*
 * "ADDRESS [VALUE]": a PLCI or NCCI, and, if @value is not NULL, a value
 * of at most @max.
 */
static int capisim_get_addr(const char __user *ubuf, size_t count,
			    u32 *adr, u32 *value, u32 max)
{
	char buf[48], *argv[2];
	int n;

	n = capisim_get_cmd(ubuf, count, buf, sizeof(buf), argv,
			    value ? 2 : 1);
	if (n < 0)
		return n;
	if (n < 1 || !capisim_get_num(argv[0], U32_MAX, adr))
		return -EINVAL;
	if (n > 1 && !capisim_get_num(argv[1], max, value))
		return -EINVAL;
	return 0;
}

/* "PLCI|NCCI [REASON]": the remote side hangs up. */
static ssize_t capisim_hangup_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct capisim_ctrl *cs = file->private_data;
	u32 adr, reason = CAPISIM_REASON_REMOTE;
	struct capisim_chan *ch;
	unsigned long flags;
	ssize_t ret;

	ret = capisim_get_addr(ubuf, count, &adr, &reason, U16_MAX);
	if (ret)
		return ret;

	spin_lock_irqsave(&cs->lock, flags);
	if (adr >> 16)
		ch = capisim_find_ncci(cs, 0, adr);
	else
		ch = capisim_find_plci(cs, 0, adr);
	if (!ch)
		ret = -ENOENT;
	else if (ch->pstate == PLCI_DISCONNECTING)
		ret = -EALREADY;
	else if (!capisim_disconnect(cs, ch, NULL, reason, reason))
		ret = -ENOMEM;
	else
		ret = count;
	spin_unlock_irqrestore(&cs->lock, flags);
	if (ret > 0)
		schedule_work(&cs->tx_work);
	return ret;
}

/*
 * "NCCI datalen|len|short": the next DATA_B3_IND on NCCI goes out spoilt
 * (enum capisim_malform); "NCCI none" takes that back.
 */
static ssize_t capisim_malform_write(struct file *file,
				     const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	static const char * const kinds[] = {
		[MALFORM_NONE] = "none",
		[MALFORM_DATALEN] = "datalen",
		[MALFORM_LEN] = "len",
		[MALFORM_SHORT] = "short",
	};
	struct capisim_ctrl *cs = file->private_data;
	struct capisim_chan *ch;
	char buf[48], *argv[2];
	unsigned long flags;
	ssize_t ret;
	u32 adr;
	int n, how;

	n = capisim_get_cmd(ubuf, count, buf, sizeof(buf), argv,
			    ARRAY_SIZE(argv));
	if (n < 0)
		return n;
	if (n != 2 || !capisim_get_num(argv[0], U32_MAX, &adr))
		return -EINVAL;
	how = match_string(kinds, ARRAY_SIZE(kinds), argv[1]);
	if (how < 0)
		return -EINVAL;

	spin_lock_irqsave(&cs->lock, flags);
	ch = capisim_find_ncci(cs, 0, adr);
	if (!ch) {
		ret = -ENOENT;
	} else {
		ch->malform = how;
		ret = count;
	}
	spin_unlock_irqrestore(&cs->lock, flags);
	return ret;
}

/*
 * "NCCI N" (N at most 1000) into the fault counter of NCCI at offset
 * @field of struct capisim_chan; with @push, what the channel may now
 * send goes out at once.
 */
static ssize_t capisim_ncci_count_write(struct file *file,
					const char __user *ubuf, size_t count,
					size_t field, bool push)
{
	struct capisim_ctrl *cs = file->private_data;
	struct capisim_chan *ch;
	unsigned long flags;
	u32 adr, n = 0;
	ssize_t ret;

	ret = capisim_get_addr(ubuf, count, &adr, &n, 1000);
	if (ret)
		return ret;

	spin_lock_irqsave(&cs->lock, flags);
	ch = capisim_find_ncci(cs, 0, adr);
	if (!ch) {
		ret = -ENOENT;
	} else {
		*(unsigned int *)((u8 *)ch + field) = n;
		if (push)
			capisim_echo_push(cs, ch);
		ret = count;
	}
	spin_unlock_irqrestore(&cs->lock, flags);
	if (ret > 0 && push)
		schedule_work(&cs->tx_work);
	return ret;
}

/*
 * "NCCI N": the next N DATA_B3_REQs on NCCI are refused with
 * CAPI_SENDQUEUEFULL, as by a controller whose queue is full.
 */
static ssize_t capisim_sendqueuefull_write(struct file *file,
					   const char __user *ubuf,
					   size_t count, loff_t *ppos)
{
	return capisim_ncci_count_write(file, ubuf, count,
					offsetof(struct capisim_chan,
						 sendqueuefull), false);
}

/*
 * "NCCI N": the next N DATA_B3_INDs on NCCI go out even when the
 * application's window is full, as from a controller that does not keep
 * to it.  They take no place in the window, so a DATA_B3_RESP for one is
 * stray.
 */
static ssize_t capisim_overrun_write(struct file *file,
				     const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	return capisim_ncci_count_write(file, ubuf, count,
					offsetof(struct capisim_chan, overrun),
					true);
}

/*
 * "NCCI N [LEN]": N DATA_B3_INDs of LEN bytes (default 64) on NCCI, as
 * fast as the application's window lets them go.  "NCCI 0" stops it.
 */
static ssize_t capisim_flood_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct capisim_ctrl *cs = file->private_data;
	struct capisim_appl *ap;
	struct capisim_chan *ch;
	char buf[64], *argv[3];
	u32 adr, n, len = 64;
	unsigned long flags;
	ssize_t ret;
	int argc;

	argc = capisim_get_cmd(ubuf, count, buf, sizeof(buf), argv,
			       ARRAY_SIZE(argv));
	if (argc < 0)
		return argc;
	if (argc < 2 || !capisim_get_num(argv[0], U32_MAX, &adr) ||
	    !capisim_get_num(argv[1], CAPISIM_FLOOD_MAX, &n) ||
	    (argc > 2 && !capisim_get_num(argv[2], CAPISIM_MAX_B3_DATA, &len)) ||
	    !len)
		return -EINVAL;

	spin_lock_irqsave(&cs->lock, flags);
	ch = capisim_find_ncci(cs, 0, adr);
	ap = ch ? capisim_appl(cs, ch->applid) : NULL;
	if (!ch || !ap) {
		ret = -ENOENT;
	} else if (!capisim_b3_up(ch)) {
		ret = -EALREADY;
	} else if (len > ap->blklen) {
		ret = -EINVAL;
	} else {
		ch->flood = n;
		ch->flood_len = len;
		capisim_echo_push(cs, ch);
		ret = count;
	}
	spin_unlock_irqrestore(&cs->lock, flags);
	if (ret > 0)
		schedule_work(&cs->tx_work);
	return ret;
}

/*
 * "APPLID ADR": an indication for an address that has no call on the
 * controller, as a confused controller could send it: DATA_B3_IND with
 * 4 bytes for an NCCI, DISCONNECT_IND for a PLCI.
 */
static ssize_t capisim_stray_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct capisim_ctrl *cs = file->private_data;
	struct sk_buff *skb = NULL;
	char buf[48], *argv[2];
	unsigned long flags;
	u32 applid, adr;
	ssize_t ret;
	int argc;

	argc = capisim_get_cmd(ubuf, count, buf, sizeof(buf), argv,
			       ARRAY_SIZE(argv));
	if (argc < 0)
		return argc;
	if (argc != 2 || !capisim_get_num(argv[0], CAPI_MAXAPPL, &applid) ||
	    !capisim_get_num(argv[1], U32_MAX, &adr) ||
	    (adr & 0x7f) != cs->ctr.cnr || !(adr & 0xff00))
		return -EINVAL;

	spin_lock_irqsave(&cs->lock, flags);
	if (!capisim_appl(cs, applid)) {
		ret = -ENOENT;
	} else if (capisim_find_ncci(cs, 0, adr) ||
		   (adr <= 0xffff && capisim_find_plci(cs, 0, adr))) {
		ret = -EBUSY;	/* that one exists: it would not be stray */
	} else {
		if (adr > 0xffff) {
			skb = capisim_msg(applid, CAPI_DATA_B3, CAPI_IND, 0,
					  adr, 4);
			msg_u32(skb, 0);	/* Data: follows */
			msg_u16(skb, 4);	/* Data length */
			msg_u16(skb, 0);	/* Data handle */
			msg_u16(skb, 0);	/* Flags */
			if (skb) {
				CAPIMSG_SETLEN(skb->data, skb->len);
				skb_put_data(skb, "stry", 4);
				CAPIMSG_SETMSGID(skb->data, cs->msgnum++);
				__skb_queue_tail(&cs->txq, skb);
			}
		} else {
			skb = capisim_msg(applid, CAPI_DISCONNECT, CAPI_IND, 0,
					  adr, 0);
			msg_u16(skb, CAPISIM_REASON_REMOTE);
			if (skb)
				capisim_queue(cs, skb);
		}
		if (skb) {
			cs->stray_ind++;
			ret = count;
		} else {
			ret = -ENOMEM;
		}
	}
	spin_unlock_irqrestore(&cs->lock, flags);
	if (ret > 0)
		schedule_work(&cs->tx_work);
	return ret;
}

static int capisim_counters_show(struct seq_file *m, void *v)
{
	struct capisim_ctrl *cs = m->private;
	unsigned long stray_resp, stray_ind;
	unsigned long flags;

	spin_lock_irqsave(&cs->lock, flags);
	stray_resp = cs->stray_resp;
	stray_ind = cs->stray_ind;
	spin_unlock_irqrestore(&cs->lock, flags);
	seq_printf(m, "stray_resp %lu\nstray_ind %lu\n", stray_resp, stray_ind);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(capisim_counters);

/* "NCCI [REASON_B3]": the remote side clears the B3 connection only. */
static ssize_t capisim_disconnect_b3_write(struct file *file,
					   const char __user *ubuf,
					   size_t count, loff_t *ppos)
{
	struct capisim_ctrl *cs = file->private_data;
	struct capisim_chan *ch;
	unsigned long flags;
	u32 adr, reason = 0;
	ssize_t ret;

	ret = capisim_get_addr(ubuf, count, &adr, &reason, U16_MAX);
	if (ret)
		return ret;

	spin_lock_irqsave(&cs->lock, flags);
	ch = capisim_find_ncci(cs, 0, adr);
	if (!ch)
		ret = -ENOENT;
	else if (ch->nstate == NCCI_DISCONNECTING)
		ret = -EALREADY;
	else if (!capisim_disconnect_b3(cs, ch, NULL, reason))
		ret = -ENOMEM;
	else
		ret = count;
	spin_unlock_irqrestore(&cs->lock, flags);
	if (ret > 0)
		schedule_work(&cs->tx_work);
	return ret;
}

/* "PLCI": the remote side opens a B3 connection on an active call. */
static ssize_t capisim_connect_b3_write(struct file *file,
					const char __user *ubuf,
					size_t count, loff_t *ppos)
{
	struct capisim_ctrl *cs = file->private_data;
	struct capisim_chan *ch;
	struct sk_buff *skb;
	unsigned long flags;
	ssize_t ret;
	u32 adr;

	ret = capisim_get_addr(ubuf, count, &adr, NULL, 0);
	if (ret)
		return ret;

	spin_lock_irqsave(&cs->lock, flags);
	ch = capisim_find_plci(cs, 0, adr);
	if (!ch) {
		ret = -ENOENT;
	} else if (ch->pstate != PLCI_ACTIVE) {
		ret = -EAGAIN;
	} else if (ch->peer || !capisim_ncci_alloc(cs, ch)) {
		/* a switched call has no network side to open one */
		ret = -EBUSY;
	} else {
		skb = capisim_connect_b3_ind(ch);
		if (skb) {
			capisim_ncci_start(cs, ch, NCCI_INCOMING);
			capisim_queue(cs, skb);
			ret = count;
		} else {
			ret = -ENOMEM;
		}
	}
	spin_unlock_irqrestore(&cs->lock, flags);
	if (ret > 0)
		schedule_work(&cs->tx_work);
	return ret;
}

/* The call's application, or those it is offered to: "2,3". */
static void capisim_show_appl(struct seq_file *m, struct capisim_chan *ch)
{
	unsigned int i;
	char sep = ' ';

	if (ch->pstate != PLCI_INCOMING) {
		seq_printf(m, "%u ", ch->applid);
		return;
	}
	for_each_set_bit(i, ch->offered, CAPI_MAXAPPL) {
		if (sep == ',')
			seq_putc(m, sep);
		seq_printf(m, "%u", i + 1);
		sep = ',';
	}
	seq_putc(m, ' ');
}

static int capisim_connections_show(struct seq_file *m, void *v)
{
	struct capisim_ctrl *cs = m->private;
	struct capisim_chan *ch;
	unsigned long flags;
	unsigned int i;

	seq_puts(m, "# plci state ncci b3state appl dir cip called calling tx_frames tx_bytes rx_frames rx_bytes dropped peer unacked flood\n");
	spin_lock_irqsave(&cs->lock, flags);
	for (i = 0; i < cs->nbchan; i++) {
		ch = &cs->chan[i];
		if (ch->pstate == PLCI_FREE)
			continue;
		seq_printf(m, "0x%x %s ", ch->plci,
			   capisim_pstate_name[ch->pstate]);
		if (ch->nstate == NCCI_NONE)
			seq_puts(m, "- - ");
		else
			seq_printf(m, "0x%x %s ", ch->ncci,
				   capisim_nstate_name[ch->nstate]);
		capisim_show_appl(m, ch);
		seq_printf(m, "%s %u %s %s %lu %lu %lu %lu %lu ",
			   ch->outgoing ? "out" : "in", ch->cip,
			   ch->called[0] ? ch->called : "-",
			   ch->calling[0] ? ch->calling : "-",
			   ch->tx_frames, ch->tx_bytes,
			   ch->rx_frames, ch->rx_bytes, ch->dropped);
		if (ch->peer)
			seq_printf(m, "0x%x ", ch->peer->plci);
		else
			seq_puts(m, "- ");
		seq_printf(m, "%u %u\n", ch->unacked, ch->flood);
	}
	spin_unlock_irqrestore(&cs->lock, flags);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(capisim_connections);

static int capisim_applications_show(struct seq_file *m, void *v)
{
	struct capisim_ctrl *cs = m->private;
	struct capisim_appl *ap;
	unsigned long flags;
	unsigned int i;

	seq_puts(m, "# appl level3cnt window blklen nccis info_mask cip_mask cip_mask2 msn echo_bytes\n");
	spin_lock_irqsave(&cs->lock, flags);
	for (i = 0; i < CAPI_MAXAPPL; i++) {
		ap = &cs->appl[i];
		if (!ap->registered)
			continue;
		seq_printf(m, "%u %u %u %u %u 0x%08x 0x%08x 0x%08x %s %u\n",
			   i + 1, ap->level3cnt, ap->window, ap->blklen,
			   ap->nccis, ap->info_mask, ap->cip_mask,
			   ap->cip_mask2, ap->msn[0] ? ap->msn : "-",
			   ap->echo_bytes);
	}
	spin_unlock_irqrestore(&cs->lock, flags);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(capisim_applications);

static const struct file_operations capisim_incoming_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = capisim_incoming_write,
	.llseek = CAPISIM_NO_LLSEEK,
};

static const struct file_operations capisim_hangup_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = capisim_hangup_write,
	.llseek = CAPISIM_NO_LLSEEK,
};

static const struct file_operations capisim_connect_b3_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = capisim_connect_b3_write,
	.llseek = CAPISIM_NO_LLSEEK,
};

static const struct file_operations capisim_disconnect_b3_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = capisim_disconnect_b3_write,
	.llseek = CAPISIM_NO_LLSEEK,
};

static const struct file_operations capisim_malform_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = capisim_malform_write,
	.llseek = CAPISIM_NO_LLSEEK,
};

static const struct file_operations capisim_sendqueuefull_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = capisim_sendqueuefull_write,
	.llseek = CAPISIM_NO_LLSEEK,
};

static const struct file_operations capisim_overrun_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = capisim_overrun_write,
	.llseek = CAPISIM_NO_LLSEEK,
};

static const struct file_operations capisim_flood_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = capisim_flood_write,
	.llseek = CAPISIM_NO_LLSEEK,
};

static const struct file_operations capisim_stray_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = capisim_stray_write,
	.llseek = CAPISIM_NO_LLSEEK,
};

static void capisim_debugfs_init(struct capisim_ctrl *cs)
{
	char name[16];

	snprintf(name, sizeof(name), "ctr%d", cs->ctr.cnr);
	cs->debugfs = debugfs_create_dir(name, capisim_debugfs_root);
	debugfs_create_file("incoming", 0200, cs->debugfs, cs,
			    &capisim_incoming_fops);
	debugfs_create_file("hangup", 0200, cs->debugfs, cs,
			    &capisim_hangup_fops);
	debugfs_create_file("connect_b3", 0200, cs->debugfs, cs,
			    &capisim_connect_b3_fops);
	debugfs_create_file("disconnect_b3", 0200, cs->debugfs, cs,
			    &capisim_disconnect_b3_fops);
	debugfs_create_file("malform", 0200, cs->debugfs, cs,
			    &capisim_malform_fops);
	debugfs_create_file("sendqueuefull", 0200, cs->debugfs, cs,
			    &capisim_sendqueuefull_fops);
	debugfs_create_file("overrun", 0200, cs->debugfs, cs,
			    &capisim_overrun_fops);
	debugfs_create_file("flood", 0200, cs->debugfs, cs,
			    &capisim_flood_fops);
	debugfs_create_file("stray", 0200, cs->debugfs, cs,
			    &capisim_stray_fops);
	debugfs_create_file("counters", 0400, cs->debugfs, cs,
			    &capisim_counters_fops);
	debugfs_create_file("connections", 0400, cs->debugfs, cs,
			    &capisim_connections_fops);
	debugfs_create_file("applications", 0400, cs->debugfs, cs,
			    &capisim_applications_fops);
	debugfs_create_u32("nbchan", 0400, cs->debugfs, &cs->nbchan);
}

/* -------- module ------------------------------------------------------ */

static void capisim_ctrl_destroy(struct capisim_ctrl *cs)
{
	unsigned int i;

	debugfs_remove_recursive(cs->debugfs);

	/*
	 * No application is registered with the controller, so kernelcapi
	 * does not call it: kernelcapi holds a reference to this module for
	 * each application (ctr->owner), and capisim_init() makes the
	 * controllers ready for applications only when it cannot fail any
	 * more.  Releasing an application has ended its calls and dropped
	 * its messages already.
	 */
	if (cs->attached)
		detach_capi_ctr(&cs->ctr);
	/* an answer timer left running schedules tx_work */
	for (i = 0; i < cs->nbchan; i++)
		del_timer_sync(&cs->chan[i].answer_timer);
	cancel_work_sync(&cs->tx_work);

	/* nothing should be left; free it all the same */
	for (i = 0; i < cs->nbchan; i++)
		capisim_echo_purge(&cs->chan[i]);
	__skb_queue_purge(&cs->txq);
	kfree(cs->chan);
	kfree(cs);
}

static struct capisim_ctrl *capisim_ctrl_create(u8 index)
{
	struct capisim_ctrl *cs;
	struct capi_ctr *ctr;
	unsigned int i;
	int err;

	cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	if (!cs)
		return ERR_PTR(-ENOMEM);
	cs->index = index;
	cs->nbchan = nbchan;
	spin_lock_init(&cs->lock);
	skb_queue_head_init(&cs->txq);
	INIT_WORK(&cs->tx_work, capisim_tx_work);
	cs->chan = kcalloc(nbchan, sizeof(*cs->chan), GFP_KERNEL);
	if (!cs->chan) {
		kfree(cs);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < nbchan; i++) {
		cs->chan[i].cs = cs;
		skb_queue_head_init(&cs->chan[i].echoq);
		timer_setup(&cs->chan[i].answer_timer, capisim_answer_timeout, 0);
	}
	snprintf(cs->procinfo, sizeof(cs->procinfo), "b-channels=%u", nbchan);

	ctr = &cs->ctr;
	/*
	 * kernelcapi takes a reference to the module for each application
	 * registered with the controller: capisim cannot be unloaded while
	 * applications use it.
	 */
	ctr->owner = THIS_MODULE;
	ctr->driverdata = cs;
	ctr->driver_name = "capisim";
	snprintf(ctr->name, sizeof(ctr->name), "capisim-%u", index);
	ctr->register_appl = capisim_register_appl;
	ctr->release_appl = capisim_release_appl;
	ctr->send_message = capisim_send_message;
	ctr->procinfo = capisim_procinfo;
	ctr->proc_show = capisim_proc_show;

	err = attach_capi_ctr(ctr);
	if (err) {
		capisim_ctrl_destroy(cs);
		return ERR_PTR(err);
	}
	cs->attached = true;

	strscpy(ctr->manu, "capisim simulated CAPI 2.0 controller",
		sizeof(ctr->manu));
	ctr->version.majorversion = 2;	/* CAPI 2.0 */
	ctr->version.minorversion = 0;
	ctr->version.majormanuversion = 1;
	ctr->version.minormanuversion = 0;
	snprintf(ctr->serial, sizeof(ctr->serial), "%07u", index + 1);
	ctr->profile.ncontroller = nctrl;
	ctr->profile.nbchannel = nbchan;
	ctr->profile.goptions = BIT(0);	/* internal controller */
	ctr->profile.support1 = BIT(0) | BIT(1); /* B1: HDLC, transparent */
	ctr->profile.support2 = BIT(0) | BIT(1); /* B2: X.75, transparent */
	ctr->profile.support3 = BIT(0);	/* B3: transparent */

	capisim_debugfs_init(cs);
	return cs;
}

static void capisim_cleanup(void)
{
	unsigned int i;

	for (i = nctrl; i-- > 0; )
		if (capisim_ctrls[i])
			capisim_ctrl_destroy(capisim_ctrls[i]);
	kfree(capisim_ctrls);
	debugfs_remove_recursive(capisim_debugfs_root);
}

static int __init capisim_init(void)
{
	struct capisim_ctrl *cs;
	unsigned int i;

	if (nctrl < 1 || nctrl > CAPI_MAXCONTR) {
		pr_err("nctrl=%u: must be 1 to %u\n", nctrl, CAPI_MAXCONTR);
		return -EINVAL;
	}
	if (nbchan < 1 || nbchan > CAPISIM_MAX_BCHAN) {
		pr_err("nbchan=%u: must be 1 to %u\n", nbchan,
		       CAPISIM_MAX_BCHAN);
		return -EINVAL;
	}
	if (echo_limit > INT_MAX) {
		pr_err("echo_limit=%u: must be at most %d\n", echo_limit,
		       INT_MAX);
		return -EINVAL;
	}

	capisim_ctrls = kcalloc(nctrl, sizeof(*capisim_ctrls), GFP_KERNEL);
	if (!capisim_ctrls)
		return -ENOMEM;
	capisim_debugfs_root = debugfs_create_dir("capisim", NULL);
	debugfs_create_atomic_t("echo_bytes", 0400, capisim_debugfs_root,
				&capisim_echo_bytes);

	for (i = 0; i < nctrl; i++) {
		cs = capisim_ctrl_create(i);
		if (IS_ERR(cs)) {
			pr_err("controller %u: error %ld\n", i, PTR_ERR(cs));
			capisim_cleanup();
			return PTR_ERR(cs);
		}
		capisim_ctrls[i] = cs;
	}
	/* nothing can fail any more: applications may register now */
	for (i = 0; i < nctrl; i++)
		capi_ctr_ready(&capisim_ctrls[i]->ctr);
	pr_info("%u controller(s) with %u B channel(s) each\n", nctrl, nbchan);
	return 0;
}

static void __exit capisim_exit(void)
{
	capisim_cleanup();
}

module_init(capisim_init);
module_exit(capisim_exit);

MODULE_DESCRIPTION("Simulated CAPI 2.0 controller for testing");
MODULE_AUTHOR("capi-devd developers <capi-devd@example.org>");
MODULE_LICENSE("GPL");
