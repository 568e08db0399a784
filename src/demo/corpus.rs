//! The texts demo conversations are made of (assets/demo), and a small
//! deterministic random source so a seed always gives the same store.

const PROMPTS: &str = include_str!("../../assets/demo/prompts.txt");
const REPLIES: &str = include_str!("../../assets/demo/replies.txt");
const THINKING: &str = include_str!("../../assets/demo/thinking.txt");
const TOOL_OUTPUTS: &str = include_str!("../../assets/demo/tool_outputs.txt");
const CODE: &str = include_str!("../../assets/demo/code.txt");
/// The system prompt of every demo session.
pub const SYSTEM_PROMPT: &str = include_str!("../../assets/demo/system_prompt.txt");
/// A 16x16 PNG for image parts.
pub const IMAGE_PNG: &[u8] = include_bytes!("../../assets/demo/image.png");

/// The demo texts, split into pieces.
#[derive(Debug)]
pub struct Corpus {
    /// First prompts, one per line.
    pub prompts: Vec<&'static str>,
    /// Assistant replies.
    pub replies: Vec<&'static str>,
    /// Thinking passages.
    pub thinking: Vec<&'static str>,
    /// Tool outputs.
    pub tool_outputs: Vec<&'static str>,
    /// Code blocks.
    pub code: Vec<&'static str>,
}

impl Corpus {
    /// Splits the embedded texts.
    pub fn load() -> Corpus {
        Corpus {
            prompts: PROMPTS.lines().filter(|l| !l.trim().is_empty()).collect(),
            replies: pieces(REPLIES),
            thinking: pieces(THINKING),
            tool_outputs: pieces(TOOL_OUTPUTS),
            code: pieces(CODE),
        }
    }
}

fn pieces(text: &'static str) -> Vec<&'static str> {
    text.split("\n---\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// splitmix64: tiny, fast and good enough to vary demo data reproducibly.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// One item of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A uuid4 made from this generator.
    pub fn uuid(&mut self) -> uuid::Uuid {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.next_u64().to_le_bytes());
        bytes[8..].copy_from_slice(&self.next_u64().to_le_bytes());
        uuid::Builder::from_random_bytes(bytes).into_uuid()
    }
}
