//! GetVideoLiveStreamInfo (SUPPLEMENT 2.1.9): YouTube oEmbed through the read-through cache
//! (600 s; upstream failures 60 s). Every outcome is a 200 with its `error` value.

use poem::Request;
use sitrep_pipelines::youtube::{self, VideoLookup};

use super::{
    model::{VideoError, VideoLiveStreamInfo},
    params::{CHANNEL, VIDEO_ID},
};
use crate::read_through::Fresh;
use sitrep_platform::kit::wire_name::WireName;
use sitrep_platform::{
    app_state::AppState,
    kit::{
        answer::{live_get, Answer},
        canonical::Canonical,
        parse::{parse_with, Parsed},
    },
    registry::Operation,
};

const TTL: i64 = 600;
const FAILURE_TTL: i64 = 60;

fn with_error(video_id: &str, error: VideoError) -> VideoLiveStreamInfo {
    VideoLiveStreamInfo { video_id: video_id.to_string(), error: WireName(error), ..Default::default() }
}

pub async fn answer(state: &AppState, req: &Request, op: &'static Operation) -> Answer<VideoLiveStreamInfo> {
    let Parsed { params: (video_id, channel), jmespath, .. } =
        match parse_with::<VideoLiveStreamInfo, _>(req, op, |q, _| {
            (VIDEO_ID.raw(q).unwrap_or("").to_string(), CHANNEL.raw(q).is_some())
        }) {
            Ok(parsed) => parsed,
            Err(e) => return e.into(),
        };
    let jmespath = jmespath.as_deref();
    let replay = crate::context(state).read_through.is_replay();
    let info = match (video_id.as_str(), channel) {
        ("", true) => with_error("", VideoError::ChannelLiveDetectionRetired),
        ("", false) => with_error("", VideoError::MissingVideoId),
        (id, _) if !youtube::is_video_id(id) => with_error(id, VideoError::InvalidVideoId),
        (id, _) => {
            let rt = &crate::context(state).read_through;
            let (info, lease) = rt
                .get_or_fetch(
                    &Canonical::new(vec![("video_id", id.to_string())]).live_key("youtube"),
                    || state.clock.now(),
                    || async {
                        match youtube::lookup(&rt.http, id).await {
                            Ok(VideoLookup::Found { title, channel_name }) => Fresh {
                                value: VideoLiveStreamInfo {
                                    video_id: id.to_string(),
                                    title,
                                    channel_name,
                                    channel_exists: true,
                                    ..Default::default()
                                },
                                ttl_seconds: TTL,
                            },
                            Ok(VideoLookup::NotFound) => {
                                Fresh { value: with_error(id, VideoError::VideoNotFound), ttl_seconds: TTL }
                            }
                            Err(e) => {
                                tracing::warn!(error = %e, "youtube oembed failed");
                                Fresh { value: with_error(id, VideoError::UpstreamError), ttl_seconds: FAILURE_TTL }
                            }
                        }
                    },
                )
                .await;
            let degraded = info.error.0 == VideoError::UpstreamError;
            return rt.answer(state, req, jmespath, &info, degraded, lease);
        }
    };
    live_get(req, jmespath, &info, info.error.0 == VideoError::UpstreamError, replay)
}
